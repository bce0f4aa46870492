--[[
EXTEND, a BATCH operation. ARGV: now, id, token, expiresAt. The lease's expiry moves, its
token stays (an ack's check). One Redis: the lease's entry in GL is rescored, when it is there
(ZADD XX would answer 0 for an entry whose score does not change). Reply: replies.ts
REPLY.extend.
]]
local id, exp = ARGV[2], tonumber(ARGV[4])
if GL then
  local m = hostof(T) .. '|' .. id .. '|' .. ARGV[3]
  if not redis.call('ZSCORE', GL, m) then return {0, snapshot(false)} end
  redis.call('ZADD', GL, istr(exp), m)
  return {1, snapshot(false)}
end
local r = get(id)
if not (r and r[FS] == 'l' and r[FK] == ARGV[3]) then return {0, snapshot(false)} end
redis.call('ZADD', L, exp, id) r[FE] = exp put(id, r) mark('dr')
return {1, snapshot(true)}
