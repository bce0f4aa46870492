--[[
LAYOUT_CHECK, alone (layout.ts). KEYS: seq, layout. ARGV: this version. Answers the stored
version, stamping an empty frontier.
]]
local v = redis.call('GET', KEYS[2])
if v then return v end
if redis.call('EXISTS', KEYS[1]) == 1 then return '1' end
redis.call('SET', KEYS[2], ARGV[1])
return ARGV[1]
