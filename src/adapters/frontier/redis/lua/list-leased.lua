--[[
LIST_LEASED, a host script (Cluster): the leased tasks of the host, expired ones included
(reclaimed only by lease()). Reply: task rows (replies.ts TASK_ROW).
]]
local out = {}
for _, id in ipairs(redis.call('ZRANGE', L, 0, -1)) do out[#out + 1] = task(id, get(id)) end
return out
