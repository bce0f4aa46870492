--[[
LIST_DEAD, a host script. ARGV: max, jobId or ''. Dead tasks in dead order: dead rows
(replies.ts DEAD_ROW).
]]
local max, job, out = tonumber(ARGV[1]), ARGV[2], {}
for _, id in ipairs(redis.call('ZRANGE', X, 0, -1)) do
  if #out >= max then break end
  local r = get(id)
  if job == '' or r[FJ] == job then out[#out + 1] = {id, r[FU], r[FJ], r[FP], r[FDP], r[FA], r[FERR], r[FDA], r[FC], r[FRU] or false} end
end
return out
