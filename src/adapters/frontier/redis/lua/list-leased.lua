--[[
LIST_LEASED, a host script (Cluster): the leased tasks of the host, expired ones included
(reclaimed only by lease()). ARGV: the owner ('' for every owner's). Reply: task rows
(replies.ts TASK_ROW).
]]
local out = {}
for _, id in ipairs(redis.call('ZRANGE', L, 0, -1)) do
  local r = get(id)
  if r and (ARGV[1] == '' or r[FO] == ARGV[1]) then out[#out + 1] = task(id, r) end
end
return out
