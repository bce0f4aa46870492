--[[
PEEK, a host operation (Cluster lease). ARGV: now, max, bound. After refreshing, the best
ready entries (suffix, score, ...): at most max, only those scoring <= bound, but at least the
best one. The snapshot only when refreshing changed something (false otherwise: nothing to
publish). Reply: replies.ts REPLY.peek.
]]
local changed = refresh(tonumber(ARGV[1]))
local top = redis.call('ZRANGEBYSCORE', R, '-inf', ARGV[3], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
if #top == 0 then top = redis.call('ZRANGE', R, 0, 0, 'WITHSCORES') end
if changed then return {top, snapshot(true)} end
return {top, false}
