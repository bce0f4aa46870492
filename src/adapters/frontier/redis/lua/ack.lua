--[[
ACK, a host operation. ARGV: now, id, token, recrawlAt or '', seq. Reply: replies.ts REPLY.ack.
]]
local now, id = tonumber(ARGV[1]), ARGV[2]
local r = leased(id, ARGV[3])
if not r then return {0, snapshot(false)} end
unlease(id, r)
if ARGV[4] ~= '' then r[FG] = r[FG] + 1 r[FA] = 0 r[FERR] = false pend(id, r, tonumber(ARGV[4]), tonumber(ARGV[5]), now)
else r[FS] = 'f' r[FQ] = false redis.call('HINCRBY', M, 'done', 1) tot('f', 1) put(id, r) end
return {1, snapshot(true)}
