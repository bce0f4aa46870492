--[[
MIGRATE, after the prelude: layout 2 to 3 on one Redis, in one atomic call (docs/redis.md,
_Layout versions_, run by open(), layout.ts): every host's lease zset moves into GL (the same
tasks, tokens and expiries), its due entry becomes its delayed head alone, and the leased-hosts
set goes (GL replaces it), and each host's task hash bucket count (tb) is copied into the
bucket count hash; then the layout key says 3. KEYS: the host set, the due index, the
leased-hosts set, GL, the layout key, the bucket count hash. ARGV: the key prefix. Answers the
number of leases moved. O(hosts + leases): it blocks Redis that long, once.
]]
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
