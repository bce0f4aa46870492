--[[
REPAIR, after the prelude: repair() on a single Redis (layout 3) rebuilds the index bucket
and totals from every host's own state, in one atomic call (so no change of another daemon can
slip between the recount and the write; it blocks Redis for O(hosts + leases), ~10 commands a
host). KEYS: the host set, then the six index keys and the lease zset (GL, the source of truth
for leases: kept). ARGV: the key prefix. Answers the number of hosts. Single Redis only: it
names host keys it computes from the prefix.
]]
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
