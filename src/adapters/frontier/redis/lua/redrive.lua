--[[
REDRIVE, a host operation. ARGV: now, jobId or '', then pairs (suffix, seq). Same generation,
attempts 0, ready now. Reply: replies.ts REPLY.redrive.
]]
local now, job, moved = tonumber(ARGV[1]), ARGV[2], 0
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local r = get(id)
  if r and r[FS] == 'x' and (job == '' or r[FJ] == job) then
    redis.call('ZREM', X, id) r[FDA] = false r[FA] = 0
    pend(id, r, now, tonumber(ARGV[i + 1]), now) moved = moved + 1
  end
end
if moved > 0 then redis.call('HINCRBY', M, 'x', -moved) tot('x', -moved) mark('xr') end
return {moved, snapshot(moved > 0)}
