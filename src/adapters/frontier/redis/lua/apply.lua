--[[
apply(I, host, S): applies host snapshot S to one index bucket, I = {snap, totals, ready
index, due index, dead hosts, leased hosts}, unless a newer version of that host was already
applied, so snapshots arriving out of order (two daemons, one host) converge on the latest
host state, and totals stay the sum of the applied snapshots. Shared by PUBLISH and, on a
single Redis, by BATCH, TAKE and ENQUEUE_MANY (their bump(), for SETTLE).
]]
local function bump(I, field, d)
  if d ~= 0 and redis.call('HINCRBY', I[2], field, d) == 0 and string.sub(field, 1, 2) == 'p:' then
    redis.call('HDEL', I[2], field)
  end
end
local function apply(I, host, S)
  local v = tonumber(S[1])
  local new = {v = v, n = tonumber(S[4]), l = tonumber(S[5]), f = tonumber(S[6]), x = tonumber(S[7]), p = {}, h = S[2], d = S[3]}
  for i = 8, #S, 2 do new.p[S[i]] = tonumber(S[i + 1]) end
  local raw = redis.call('HGET', I[1], host)
  -- h / d: the index scores last applied (absent in snapshots stored by older versions: then
  -- the index entries are written unconditionally, as for a host never published).
  local old = {v = -1, n = 0, l = 0, f = 0, x = 0, p = {}}
  if raw then old = cmsgpack.unpack(raw) end
  if v < old.v then return 0 end
  for _, k in ipairs({'n', 'l', 'f', 'x'}) do bump(I, k, new[k] - old[k]) end
  for p, c in pairs(new.p) do bump(I, 'p:' .. p, c - (old.p[p] or 0)) end
  for p, c in pairs(old.p) do if new.p[p] == nil then bump(I, 'p:' .. p, -c) end end
  redis.call('HSET', I[1], host, cmsgpack.pack(new))
  -- Index entries and host sets change only when the host's values do (most publishes move
  -- a count, not the best score or a set membership).
  local fresh = old.h == nil or old.d == nil
  if fresh or old.h ~= new.h then
    if new.h ~= '' then redis.call('ZADD', I[3], new.h, host) else redis.call('ZREM', I[3], host) end
  end
  if fresh or old.d ~= new.d then
    if new.d ~= '' then redis.call('ZADD', I[4], new.d, host) else redis.call('ZREM', I[4], host) end
  end
  if fresh or (old.x > 0) ~= (new.x > 0) then
    if new.x > 0 then redis.call('SADD', I[5], host) else redis.call('SREM', I[5], host) end
  end
  if fresh or (old.l > 0) ~= (new.l > 0) then
    if new.l > 0 then redis.call('SADD', I[6], host) else redis.call('SREM', I[6], host) end
  end
  return 1
end
