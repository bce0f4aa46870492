--[[
MAP_CHANGES (redis-map-store.ts). KEYS as map-write.lua. ARGV: the caller's version.
Reply: {version, reset (0/1), id, json, ...}: nothing after version when nothing changed;
every entry when reset (the caller is older than the log, or more than 1000 changes behind);
else the ids changed since, each with its json or '' if removed.
]]
local v = tonumber(redis.call('GET', KEYS[2]) or '0')
local since = tonumber(ARGV[1])
if v == since then return {v, 0} end
local floor = tonumber(redis.call('GET', KEYS[4]) or '0')
local out = {v, 0}
local ids = {}
if since <= v and since >= floor then
  ids = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. since, '+inf', 'LIMIT', 0, 1001)
end
if since > v or since < floor or #ids > 1000 then
  out[2] = 1
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all do out[#out + 1] = all[i] end
  return out
end
if #ids == 0 then return out end
local values = redis.call('HMGET', KEYS[1], unpack(ids))
for i = 1, #ids do
  out[#out + 1] = ids[i]
  out[#out + 1] = values[i] or ''
end
return out
