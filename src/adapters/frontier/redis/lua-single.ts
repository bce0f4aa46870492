/**
 * Scripts of the Redis frontier that exist on a single Redis only (layout 3: every lease in
 * one zset GL, `{prefix}:leases`; docs/redis.md, _Layout versions_): REPAIR (the recount),
 * LIST_LEASED (every lease, read from GL) and MIGRATE (layout 2 to 3, run by open()). They
 * name host keys they compute from the prefix: allowed on one Redis, never sent to a Cluster.
 */
import { PRELUDE } from './lua.js';

/** recover(I, now), for TAKE (after PRELUDE): I is the index bucket as SETTLE takes it. */
export const RECOVER = `
-- One Redis: the leases expired by now come back ready, with their seq and attempts (the
-- other layout's refresh does the same per host), the least first, at most 1000 a call (the
-- rest on the next calls). Their hosts' ready entries are written at once, so the candidates
-- a TAKE reads next see them. A record still marked leased (written by layout 2) is cleaned.
local function recover(I, now)
  local gone = redis.call('ZRANGEBYSCORE', GL, '-inf', now, 'LIMIT', 0, 1000)
  if #gone == 0 then return end
  local prefix = string.match(GL, '^{(.*)}:leases$')
  for _, m in ipairs(gone) do
    local host, id = string.match(m, '^([^|]*)|([^|]*)|')
    use_t(prefix .. ':{' .. host .. '}:t')
    redis.call('ZREM', GL, m)
    local r = get(id)
    if r then
      unlease(id, r)
      redis.call('ZADD', R, score(r[FP], qof(r)), id) count(r[FP], 1)
      if r[FS] ~= 'r' then r[FS] = 'r' put(id, r) end
      redis.call('ZADD', I[3], 'LT', score(r[FP], qof(r)), host)
    end
  end
end
`;

/**
 * repair() on a single Redis: rebuilds the index bucket and totals from every host's own
 * state, in one atomic call (so no change of another daemon can slip between the recount and
 * the write; it blocks Redis for O(hosts + leases), ~10 commands a host). KEYS: the host set,
 * then the six index keys and the lease zset (GL, the source of truth for leases: kept).
 * ARGV: the key prefix. Answers the number of hosts.
 */
export const REPAIR = `${PRELUDE}
local I = {KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]}
local NRK = besideGL(KEYS[8], 'nr')
redis.call('DEL', I[1], I[2], I[3], I[4], I[5], I[6])
local sum = {n = 0, l = 0, f = 0, x = 0}
local leases = {}
for _, m in ipairs(redis.call('ZRANGE', KEYS[8], 0, -1)) do
  local host = string.match(m, '^([^|]*)|')
  leases[host] = (leases[host] or 0) + 1
end
local hosts = redis.call('SMEMBERS', KEYS[1])
for _, host in ipairs(hosts) do
  use_t(ARGV[1] .. ':{' .. host .. '}:t')
  local m = redis.call('HGETALL', M)
  local l, all = leases[host] or 0, 0
  for i = 1, #m, 2 do
    local k, v = m[i], tonumber(m[i + 1])
    if k == 'done' then sum.f = sum.f + v all = all + v
    elseif k == 'x' then sum.x = sum.x + v all = all + v
    elseif string.sub(k, 1, 2) == 'p:' then sum[k] = (sum[k] or 0) + v sum.n = sum.n + v all = all + v end
  end
  sum.l = sum.l + l
  redis.call('HSET', NRK, host, all + l)
  local h = redis.call('ZRANGE', R, 0, 0, 'WITHSCORES')[2]
  if h then redis.call('ZADD', I[3], h, host) end
  local d = redis.call('ZRANGE', D, 0, 0, 'WITHSCORES')[2]
  if d then redis.call('ZADD', I[4], d, host) end
  if tonumber(redis.call('HGET', M, 'x') or '0') > 0 then redis.call('SADD', I[5], host) end
end
for f, v in pairs(sum) do
  if v ~= 0 or string.sub(f, 1, 2) ~= 'p:' then redis.call('HSET', I[2], f, v) end
end
return #hosts
`;

/**
 * listLeased() on one Redis: every lease in GL (host|suffix|token → expiry) with its record.
 * KEYS: GL. ARGV: the key prefix. Answers {host, task row} per lease.
 */
export const LIST_LEASED = `${PRELUDE}
local out, all = {}, redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #all, 2 do
  local host, id, tok = string.match(all[i], '^([^|]*)|([^|]*)|(.*)$')
  use_t(ARGV[1] .. ':{' .. host .. '}:t')
  local r = get(id)
  if r then r[FK] = tok r[FE] = tonumber(all[i + 1]) out[#out + 1] = {host, task(id, r)} end
end
return out
`;

/**
 * Layout 2 to 3 on one Redis, in one atomic call: every host's lease zset moves into GL (the
 * same tasks, tokens and expiries), its due entry becomes its delayed head alone, and the
 * leased-hosts set goes (GL replaces it), and each host's task hash bucket count (tb) is copied
 * into the bucket count hash; then the layout key says 3. KEYS: the host set, the due index,
 * the leased-hosts set, GL, the layout key, the bucket count hash. ARGV: the key prefix. Answers the
 * number of leases moved. O(hosts + leases): it blocks Redis that long, once.
 */
export const MIGRATE = `${PRELUDE}
local moved = 0
for _, host in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  use_t(ARGV[1] .. ':{' .. host .. '}:t')
  local l = redis.call('ZRANGE', L, 0, -1, 'WITHSCORES')
  for i = 1, #l, 2 do
    local r = get(l[i])
    if r and r[FS] == 'l' then
      redis.call('ZADD', KEYS[4], l[i + 1], host .. '|' .. l[i] .. '|' .. r[FK])
      moved = moved + 1
    end
  end
  local tb = redis.call('HGET', M, 'tb')
  if tb and tonumber(tb) > 1 then redis.call('HSET', KEYS[6], host, tb) end
  if #l > 0 then
    redis.call('DEL', L)
    local d = redis.call('ZRANGE', D, 0, 0, 'WITHSCORES')[2]
    if d then redis.call('ZADD', KEYS[2], d, host) else redis.call('ZREM', KEYS[2], host) end
  end
end
redis.call('DEL', KEYS[3])
redis.call('SET', KEYS[5], '3')
return moved
`;
