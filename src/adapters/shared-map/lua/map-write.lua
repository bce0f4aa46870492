--[[
MAP_WRITE (redis-map-store.ts). KEYS: entries hash, version, log zset, floor.
ARGV: log limit, then (id, json) pairs, json '' to remove. Reply: the map's new version.
]]
local v = 0
for i = 2, #ARGV, 2 do
  v = redis.call('INCR', KEYS[2])
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i])
  else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
  redis.call('ZADD', KEYS[3], v, ARGV[i])
end
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[1])
if over > 0 then
  local gone = redis.call('ZRANGE', KEYS[3], over - 1, over - 1, 'WITHSCORES')
  redis.call('ZREMRANGEBYRANK', KEYS[3], 0, over - 1)
  redis.call('SET', KEYS[4], gone[2])
end
return v
