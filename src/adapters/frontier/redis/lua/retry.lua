--[[
RETRY, a host operation. ARGV: now, id, token, at, reason, charge (0/1), seq.
Reply: replies.ts REPLY.retry.
]]
local id = ARGV[2]
local r = leased(id, ARGV[3])
if not r then return {0, snapshot(false)} end
unlease(id, r)
r[FA] = r[FA] + tonumber(ARGV[6]) r[FERR] = ARGV[5]
pend(id, r, tonumber(ARGV[4]), tonumber(ARGV[7]), tonumber(ARGV[1]))
return {1, snapshot(true)}
