--[[
LIST_LEASED_ALL, after the prelude: listLeased() on one Redis (layout 3), every lease in GL
(host|suffix|token -> expiry) with its record. KEYS: GL. ARGV: the key prefix, the owner's
tag that starts its tokens ('' for every owner's). Answers {host, task row} per lease
(replies.ts HOST_ROW, TASK_ROW).
]]
local out, all = {}, redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #all, 2 do
  local host, id, tok = string.match(all[i], '^([^|]*)|([^|]*)|(.*)$')
  use_t(ARGV[1] .. ':{' .. host .. '}:t')
  local r = get(id)
  if r and (ARGV[2] == '' or string.sub(tok, 1, #ARGV[2]) == ARGV[2]) then
    r[FK] = tok r[FE] = tonumber(all[i + 1]) out[#out + 1] = {host, task(id, r)}
  end
end
return out
