--[[
ACK, a host operation. ARGV: now, id, token, recrawlAt or '', seq. Reply: replies.ts REPLY.ack.
]]
local now, id = tonumber(ARGV[1]), ARGV[2]
local r
if GL then
  local v, k = leasedraw(id, ARGV[3])
  if not v then return {0, snapshot(false)} end
  -- A record the lease left as it was, ready and of 8 fields (never re-queued: no seq of its
  -- own, no lease fields), is done by its state byte alone: the bytes put() would write.
  if ARGV[4] == '' and string.sub(v, 1, 3) == '\152\161r' then
    redis.call('HSET', k, id, '\152\161f' .. string.sub(v, 4))
    tot('l', -1) hcount('done', 1) tot('f', 1)
    return {1, snapshot(true)}
  end
  r = cmsgpack.unpack(v)
else
  r = leased(id, ARGV[3])
  if not r then return {0, snapshot(false)} end
end
unlease(id, r)
if ARGV[4] ~= '' then r[FG] = r[FG] + 1 r[FA] = 0 r[FERR] = false pend(id, r, tonumber(ARGV[4]), tonumber(ARGV[5]), now)
else r[FS] = 'f' r[FQ] = false hcount('done', 1) tot('f', 1) put(id, r) end
return {1, snapshot(true)}
