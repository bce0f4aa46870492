--[[
recover(I, now), for TAKE (after the prelude; I is the index bucket as settle takes it):
on one Redis (layout 3) the leases expired by now come back ready.
]]
-- One Redis: the leases expired by now come back ready, with their seq and attempts (the
-- other layout's refresh does the same per host), the least first, at most 1000 a call (the
-- rest on the next calls). Their hosts' ready entries are written at once, so the candidates
-- a TAKE reads next see them. A record still marked leased (written by layout 2) is cleaned.
local function recover(I, now)
  local gone = redis.call('ZRANGEBYSCORE', GL, '-inf', now, 'LIMIT', 0, 1000)
  if #gone == 0 then return end
  local prefix = string.match(GL, '^{(.*)}:leases$')
  for _, m in ipairs(gone) do
    local host, id = string.match(m, '^([^|]*)|([^|]*)|')
    use_t(prefix .. ':{' .. host .. '}:t')
    redis.call('ZREM', GL, m)
    local r = get(id)
    if r then
      unlease(id, r)
      redis.call('ZADD', R, score(r[FP], qof(r)), id) count(r[FP], 1)
      if r[FS] ~= 'r' then r[FS] = 'r' put(id, r) end
      redis.call('ZADD', I[3], 'LT', score(r[FP], qof(r)), host)
    end
  end
end
