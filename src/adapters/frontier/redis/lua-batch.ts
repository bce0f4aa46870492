/**
 * The scripts that carry many host operations per call (docs/redis.md, _Batched per turn of
 * the event loop_ and _How lease() picks hosts_): BATCH (a turn's enqueues, acks, retries,
 * dead letters, redrives, and on a Cluster peeks and leases), TAKE (one lease() over many
 * hosts on a single Redis); ENQUEUE_MANY (a whole enqueue call on a single Redis) is in
 * lua-enqueue.ts;
 * REPAIR and the layout-3 scripts are in lua-single.ts.
 *
 * On a single Redis these scripts keep the index bucket themselves, by deltas: the primitives
 * of PRELUDE record what they moved (DT: totals, TOUCH: per host marks), and SETTLE applies
 * that once per call: one HINCRBY per totals field per call, and per host only the index
 * entries its marks say may have moved (an enqueue: one ZADD LT, no read). No snapshot is
 * taken or stored, since nothing but these scripts (atomic with the change) writes the index:
 * totals equal the sum of the hosts' counts at all times. On a Cluster (a script touches one
 * slot) BATCH returns snapshots instead, published by the client (PUBLISH, lua.ts).
 * ENQUEUE_MANY and TAKE (reading the index, taking back expired leases) name the host keys they compute from the
 * prefix instead of receiving them in KEYS: allowed on a single Redis, and these scripts are
 * never sent to a Cluster.
 */
import { APPLY, BATCH_BODIES, BATCH_OPS, type BatchOp, PRELUDE } from './lua.js';
import { RECOVER } from './lua-single.js';

/**
 * settle(I): applies the call's marks and totals deltas to index bucket I = {snap, totals,
 * ready index, due index, dead hosts, leased hosts}. A ready entry or a due time only added
 * is a ZADD LT (the index holds the host's least score); a removal re-reads the host's head.
 * Records added may call for task hash bucket splits: the count is kept in the hash NRK, host →
 * records (recounted once when missing, for hosts written before it existed).
 */
export const SETTLE = `
-- The index writes of all the call's hosts, one command per kind (exact entries, ZADD LT
-- entries, removals) instead of one per host.
local function zput(b, s, host) b[#b + 1] = istr(s) b[#b + 1] = host end
local function zflush(key, b)
  for j = 1, #b.set, 2000 do redis.call('ZADD', key, unpack(b.set, j, math.min(j + 1999, #b.set))) end
  for j = 1, #b.lt, 2000 do redis.call('ZADD', key, 'LT', unpack(b.lt, j, math.min(j + 1999, #b.lt))) end
  for j = 1, #b.rem, 1000 do redis.call('ZREM', key, unpack(b.rem, j, math.min(j + 999, #b.rem))) end
end
-- Records added this call, by host task key (the enqueue body's nr marks and ENQUEUE_MANY's
-- shares), and nrflush(): the hosts' record counts (NRK) read and written in one command
-- each, instead of one HINCRBY per host; a host missing there (new, or last written when the
-- count was the meta field nr) is recounted. A host past PER_BUCKET records per bucket is
-- split (a few per call at most; each moves about half of one bucket).
local NRD, NRO = {}, {}
local function grew(t, d)
  local n = NRD[t]
  if n then NRD[t] = n + d else NRD[t] = d NRO[#NRO + 1] = t end
end
local function nrflush()
  for j = 1, #NRO, 1000 do
    local last = math.min(j + 999, #NRO)
    local hs, w = {}, {}
    for k = j, last do hs[#hs + 1] = hostof(NRO[k]) end
    local v = redis.call('HMGET', NRK, unpack(hs))
    for k = j, last do
      local t = NRO[k]
      local n = tonumber(v[k - j + 1])
      if n then n = n + NRD[t] else use_t(t) n = records() end
      w[#w + 1] = hs[k - j + 1] w[#w + 1] = istr(n)
      if n > PER_BUCKET * (NB[t] or 1) then
        use_t(t)
        local splits = 0
        while n > PER_BUCKET * nbuckets() and splits < 4 do split() splits = splits + 1 end
      end
    end
    redis.call('HSET', NRK, unpack(w))
  end
end
local function settle(I)
  local r3, r4 = {set = {}, lt = {}, rem = {}}, {set = {}, lt = {}, rem = {}}
  for _, t in ipairs(TORDER) do
    local m = TOUCH[t]
    use_t(t)
    local host = hostof(t)
    if m.rr then
      -- rh: the head TAKE saw after its takes (false: none left), so no re-read.
      local h = m.rh
      if h == nil then h = redis.call('ZRANGE', R, 0, 0, 'WITHSCORES')[2] end
      if h then zput(r3.set, h, host) else r3.rem[#r3.rem + 1] = host end
    elseif m.ra then zput(r3.lt, m.ra, host) end
    if m.dr or m.lr then
      -- A removal: the due time is re-read (the delayed zset only when it may hold some), and
      -- the head lease says whether the host still has leases (it had some: only a host left
      -- without leases leaves the set).
      -- (One Redis, layout 3: leases are in GL, never in the due index nor the host sets.)
      local d, l = nil, nil
      if not GL then l = redis.call('ZRANGE', L, 0, 0, 'WITHSCORES')[2] end
      if DLC[t] ~= 0 then d = redis.call('ZRANGE', D, 0, 0, 'WITHSCORES')[2] end
      if l and (not d or tonumber(l) < tonumber(d)) then d = l end
      if d then zput(r4.set, d, host) else r4.rem[#r4.rem + 1] = host end
      if GL then elseif not l then redis.call('SREM', I[6], host) elseif m.la then redis.call('SADD', I[6], host) end
    else
      if m.da then zput(r4.lt, m.da, host) end
      if m.la then redis.call('SADD', I[6], host) end
    end
    if m.xr then
      if tonumber(redis.call('HGET', M, 'x') or '0') > 0 then redis.call('SADD', I[5], host)
      else redis.call('SREM', I[5], host) end
    elseif m.xa then redis.call('SADD', I[5], host) end
    if m.nr then grew(t, m.nr) end
  end
  nrflush()
  zflush(I[3], r3) zflush(I[4], r4)
  for f, d in pairs(DT) do bump(I, f, d) end
end
`;

/**
 * Many host operations in one script call. KEYS: one per operation, the host's task hash
 * (the host's other keys are named after it, same slot), so the same host may appear several
 * times; then, on a single Redis, the six keys of the index bucket. ARGV: 1 when those index
 * keys are there, else 0; then per operation: op index, argument count, the arguments the
 * single-host script takes. Each operation runs as that script would, in order, and answers
 * {1, its reply} or {0, error message}: one failing operation (pcall) neither stops nor
 * undoes the others. On one Redis all of a turn's operations on every host go in one call,
 * which keeps the index by deltas (SETTLE), so replies carry no snapshot (an empty one) and
 * no PUBLISH follows; on a Cluster one call per host (a script may touch one slot only), each
 * host's snapshot taken once at the end, and the client publishes.
 */
export const BATCH = `${PRELUDE}${APPLY}${SETTLE}
local inline = ARGV[1] == '1'
local I = nil
if inline then
  local n = #KEYS
  I = {KEYS[n - 6], KEYS[n - 5], KEYS[n - 4], KEYS[n - 3], KEYS[n - 2], KEYS[n - 1]}
  single(KEYS[n])
  DT, TOUCH, TORDER = {}, {}, {}
end
-- Cluster: a host's snapshot is taken once per call, after its last operation, not once per
-- operation (a turn's acks are often on one host): each operation gets a placeholder table,
-- filled in at the end with the host's final snapshot. Its version moves once if any
-- operation changed. One Redis: no snapshot at all (an empty placeholder).
local host_snapshot = snapshot
local deferred, order, current = {}, {}, 1
local function snapshot(changed)
  if inline then return {} end
  local d = deferred[T]
  if not d then d = {ph = {}, changed = false} deferred[T] = d order[#order + 1] = T end
  d.changed = d.changed or changed
  d.k = current
  return d.ph
end
local ops = {}
${(Object.keys(BATCH_OPS) as BatchOp[])
  .map((op) => `ops[${BATCH_OPS[op]}] = function(ARGV)\n${BATCH_BODIES[op]}\nend`)
  .join('\n')}
local out, i, k = {}, 2, 1
while i <= #ARGV do
  local op, n = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  local a = {}
  for j = 1, n do a[j] = ARGV[i + 1 + j] end
  use_t(KEYS[k])
  current = k
  local ok, res = pcall(ops[op], a)
  if ok then out[k] = {1, res}
  elseif type(res) == 'table' and res.err then out[k] = {0, res.err}
  else out[k] = {0, tostring(res)} end
  i = i + 2 + n
  k = k + 1
end
if inline then settle(I)
else
  for _, t in ipairs(order) do
    local d = deferred[t]
    use_t(KEYS[d.k])
    for j, v in ipairs(host_snapshot(d.changed)) do d.ph[j] = v end
  end
end
return out
`;

/**
 * One lease() over many hosts on a single Redis: no PEEK round. KEYS: the candidate hosts'
 * task keys (none when the script reads the index itself), then the index bucket's six keys.
 * ARGV: now, max, bound (the worst score worth taking), expiresAt, owner, token prefix, then
 * either n >= 0 and per candidate: limit (how many of its best it may give) and due ('1':
 * promote its due delayed tasks first; n = 0: only the expired leases are taken back); or -1, the scan limit, the key
 * prefix and the excluded hosts: then the candidates come from the index here, chosen as the
 * client would (redis-lease.ts; one round trip instead of two, for a lease without per-host
 * caps). Reads each candidate's best entries (at most limit, scoring <= bound, but at least
 * its best one), merges them by score (priority, then FIFO across hosts), leases the best
 * `max` and keeps the index (SETTLE). Answers {host, task row} per leased task, best first.
 */
export const TAKE = `${PRELUDE}${APPLY}${SETTLE}${RECOVER}
local nh = tonumber(ARGV[7])
local I = {KEYS[#KEYS - 6], KEYS[#KEYS - 5], KEYS[#KEYS - 4], KEYS[#KEYS - 3], KEYS[#KEYS - 2], KEYS[#KEYS - 1]}
single(KEYS[#KEYS])
DT, TOUCH, TORDER = {}, {}, {}
local now, max, bound, exp = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
recover(I, now)
-- {task key, host, limit, due}
local list = {}
if nh >= 0 then
  for k = 1, nh do
    local t = KEYS[k]
    list[k] = {t, string.match(t, '{([^}]*)}'), tonumber(ARGV[6 + 2 * k]), ARGV[7 + 2 * k] == '1'}
  end
else
  local scan, prefix, ex, nex = tonumber(ARGV[8]), ARGV[9], {}, #ARGV - 9
  for i = 10, #ARGV do ex[ARGV[i]] = true end
  local ready = redis.call('ZRANGE', I[3], 0, math.min(max + nex, scan) - 1, 'WITHSCORES')
  local ranked, rank, seen = {}, {}, {}
  for i = 1, #ready, 2 do
    if not ex[ready[i]] then ranked[#ranked + 1] = ready[i + 1] rank[ready[i]] = #ranked - 1 end
  end
  local hosts = {}
  for i = 1, #ready, 2 do
    if #hosts >= max then break end
    if not ex[ready[i]] then hosts[#hosts + 1] = ready[i] seen[ready[i]] = true end
  end
  local due = {}
  for _, h in ipairs(redis.call('ZRANGEBYSCORE', I[4], '-inf', now, 'LIMIT', 0, scan)) do
    due[h] = true
    if not ex[h] and not seen[h] then hosts[#hosts + 1] = h seen[h] = true end
  end
  local single = #hosts == 1
  if not single and #ranked >= max then bound = ranked[max] else bound = '+inf' end
  for k, h in ipairs(hosts) do
    local lim = max
    if not single then lim = math.max(1, max - (rank[h] or 0)) end
    list[k] = {prefix .. ':{' .. h .. '}:t', h, lim, due[h] or false}
  end
end
-- Each candidate's entries scoring <= bound (at most limit, at least its best one). Its best
-- two are read first: with many hosts the second is mostly worse than bound, and then also
-- the host's new head once its best is taken (settle reads no head: rh). Only a host with
-- more to give is read again, limit + 1 entries, whose last (when read) is its next head.
local cands, tops, taken, whole = {}, {}, {}, {}
do
  local tk, hs = {}, {}
  for k, c in ipairs(list) do tk[k] = c[1] hs[k] = c[2] end
  nbfill(tk, hs)
end
local b = tonumber(bound)
if bound == '+inf' then b = math.huge end
for k, c in ipairs(list) do
  use_t(c[1])
  if c[4] then refresh(now) end
  if c[3] > 0 then
    local top = redis.call('ZRANGE', R, 0, 1, 'WITHSCORES')
    whole[k] = true
    if c[3] > 1 and top[4] and tonumber(top[4]) <= b then
      top = redis.call('ZRANGEBYSCORE', R, '-inf', bound, 'WITHSCORES', 'LIMIT', 0, c[3] + 1)
      whole[k] = false
    end
    tops[k], taken[k] = top, 0
    for i = 1, math.min(#top, 2 * c[3]), 2 do
      local sc = tonumber(top[i + 1])
      if i > 1 and sc > b then break end
      cands[#cands + 1] = {sc, k, top[i], top[i + 1]}
    end
  end
end
table.sort(cands, function(a, b) return a[1] < b[1] end)
local out = {}
for i = 1, math.min(max, #cands) do
  local c = cands[i]
  use_t(list[c[2]][1])
  local r = get(c[3])
  take(c[3], r, exp, ARGV[5], ARGV[6] .. ':' .. i)
  taken[c[2]] = taken[c[2]] + 1
  out[i] = {list[c[2]][2], task(c[3], r, c[4])}
end
for k, n in pairs(taken) do
  local h = tops[k][2 * n + 2]
  if n > 0 and (h or whole[k]) then TOUCH[list[k][1]].rh = h or false end
end
settle(I)
return out
`;
