--[[
LEASE, a host operation (Cluster lease). ARGV: now, count, maxScore, expiresAt, owner, token
prefix, peeked ('1' when a PEEK of this host just refreshed it: not refreshed again). Leases up
to count ready tasks scoring <= maxScore (so a contended call never takes worse tasks than
planned). Reply: replies.ts REPLY.lease (task rows: TASK_ROW).
]]
local now, exp = tonumber(ARGV[1]), tonumber(ARGV[4])
local changed = false
if ARGV[7] ~= '1' then changed = refresh(now) end
local picked = redis.call('ZRANGEBYSCORE', R, '-inf', ARGV[3], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for i = 1, #picked, 2 do
  local id = picked[i]
  local r = get(id)
  take(id, r, exp, ARGV[5], ARGV[6] .. ':' .. ((i + 1) / 2))
  out[#out + 1] = task(id, r, picked[i + 1])
end
return {out, snapshot(changed or #out > 0)}
