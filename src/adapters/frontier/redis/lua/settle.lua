--[[
settle(I), after the prelude and apply.lua: applies the call's marks and totals deltas to
index bucket I = {snap, totals, ready index, due index, dead hosts, leased hosts}, on a single
Redis (BATCH, TAKE, ENQUEUE_MANY). A ready entry or a due time only added is a ZADD LT (the
index holds the host's least score); a removal re-reads the host's head. Records added may
call for task hash bucket splits: the count is kept in the hash NRK, host -> records
(recounted once when missing, for hosts written before it existed).

On a single Redis these scripts keep the index bucket themselves, by deltas: the primitives of
the prelude record what they moved (DT: totals, TOUCH: per host marks), and settle applies that
once per call: one HINCRBY per totals field per call, and per host only the index entries its
marks say may have moved (an enqueue: one ZADD LT, no read). No snapshot is taken or stored,
since nothing but these scripts (atomic with the change) writes the index: totals equal the sum
of the hosts' counts at all times.
]]
-- The index writes of all the call's hosts, one command per kind (exact entries, ZADD LT
-- entries, removals) instead of one per host.
local function zput(b, s, host) b[#b + 1] = istr(s) b[#b + 1] = host end
local function zflush(key, b)
  for j = 1, #b.set, 2000 do redis.call('ZADD', key, unpack(b.set, j, math.min(j + 1999, #b.set))) end
  for j = 1, #b.lt, 2000 do redis.call('ZADD', key, 'LT', unpack(b.lt, j, math.min(j + 1999, #b.lt))) end
  for j = 1, #b.rem, 1000 do redis.call('ZREM', key, unpack(b.rem, j, math.min(j + 999, #b.rem))) end
end
-- Records added this call, by host task key (the enqueue body's nr marks and ENQUEUE_MANY's
-- shares), and nrflush(): the hosts' record counts (NRK) read and written in one command
-- each, instead of one HINCRBY per host; a host missing there (new, or last written when the
-- count was the meta field nr) is recounted. A host past PER_BUCKET records per bucket is
-- split (a few per call at most; each moves about half of one bucket).
local NRD, NRO = {}, {}
local function grew(t, d)
  local n = NRD[t]
  if n then NRD[t] = n + d else NRD[t] = d NRO[#NRO + 1] = t end
end
local function nrflush()
  for j = 1, #NRO, 1000 do
    local last = math.min(j + 999, #NRO)
    local hs, w = {}, {}
    for k = j, last do hs[#hs + 1] = hostof(NRO[k]) end
    local v = redis.call('HMGET', NRK, unpack(hs))
    for k = j, last do
      local t = NRO[k]
      local n = tonumber(v[k - j + 1])
      if n then n = n + NRD[t] else use_t(t) n = records() end
      w[#w + 1] = hs[k - j + 1] w[#w + 1] = istr(n)
      if n > PER_BUCKET * (NB[t] or 1) then
        use_t(t)
        local splits = 0
        while n > PER_BUCKET * nbuckets() and splits < 4 do split() splits = splits + 1 end
      end
    end
    redis.call('HSET', NRK, unpack(w))
  end
end
local function settle(I)
  hcflush()
  local r3, r4 = {set = {}, lt = {}, rem = {}}, {set = {}, lt = {}, rem = {}}
  for _, t in ipairs(TORDER) do
    local m = TOUCH[t]
    use_t(t)
    local host = hostof(t)
    if m.rr then
      -- rh: the head TAKE saw after its takes (false: none left), so no re-read.
      local h = m.rh
      if h == nil then h = redis.call('ZRANGE', R, 0, 0, 'WITHSCORES')[2] end
      if h then zput(r3.set, h, host) else r3.rem[#r3.rem + 1] = host end
    elseif m.ra then zput(r3.lt, m.ra, host) end
    if m.dr or m.lr then
      -- A removal: the due time is re-read (the delayed zset only when it may hold some), and
      -- the head lease says whether the host still has leases (it had some: only a host left
      -- without leases leaves the set).
      -- (One Redis, layout 3: leases are in GL, never in the due index nor the host sets.)
      local d, l = nil, nil
      if not GL then l = redis.call('ZRANGE', L, 0, 0, 'WITHSCORES')[2] end
      if DLC[t] ~= 0 then d = redis.call('ZRANGE', D, 0, 0, 'WITHSCORES')[2] end
      if l and (not d or tonumber(l) < tonumber(d)) then d = l end
      if d then zput(r4.set, d, host) else r4.rem[#r4.rem + 1] = host end
      if GL then elseif not l then redis.call('SREM', I[6], host) elseif m.la then redis.call('SADD', I[6], host) end
    else
      if m.da then zput(r4.lt, m.da, host) end
      if m.la then redis.call('SADD', I[6], host) end
    end
    if m.xr then
      if tonumber(redis.call('HGET', M, 'x') or '0') > 0 then redis.call('SADD', I[5], host)
      else redis.call('SREM', I[5], host) end
    elseif m.xa then redis.call('SADD', I[5], host) end
    if m.nr then grew(t, m.nr) end
  end
  nrflush()
  zflush(I[3], r3) zflush(I[4], r4)
  for f, d in pairs(DT) do bump(I, f, d) end
end
