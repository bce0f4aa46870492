--[[
DEAD, a host operation. ARGV: now, id, token, reason. Reply: replies.ts REPLY.dead.
]]
local now, id = tonumber(ARGV[1]), ARGV[2]
local r = leased(id, ARGV[3])
if not r then return {0, snapshot(false)} end
unlease(id, r)
r[FA] = r[FA] + 1 r[FERR] = ARGV[4] r[FS] = 'x' r[FDA] = now
redis.call('ZADD', X, now, id) redis.call('HINCRBY', M, 'x', 1) tot('x', 1) mark('xa') put(id, r)
return {1, snapshot(true)}
