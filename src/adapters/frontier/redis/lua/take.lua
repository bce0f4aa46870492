--[[
TAKE, after the prelude, apply.lua, settle.lua and recover.lua: one lease() over many hosts
on a single Redis (docs/redis.md, _How lease() picks hosts_), no PEEK round. KEYS: the
candidate hosts' task keys (none when the script reads the index itself), then the index
bucket's six keys and GL. ARGV: now, max, bound (the worst score worth taking), expiresAt,
owner, token prefix, then either n >= 0 and per candidate: limit (how many of its best it may
give) and due ('1': promote its due delayed tasks first; n = 0: only the expired leases are
taken back); or -1, the scan limit, the key prefix and the excluded hosts: then the candidates
come from the index here, chosen as the client would (lease.ts; one round trip instead of two,
for a lease without per-host caps). Reads each candidate's best entries (at most limit,
scoring <= bound, but at least its best one), merges them by score (priority, then FIFO across
hosts), leases the best `max` and keeps the index (settle). Answers {host, id, token after
the prefix, record as stored} per leased task, best first (replies.ts TAKE_ROW; the client decodes the record). It names the host keys it computes
from the prefix: allowed on a single Redis, and never sent to a Cluster.
]]
local nh = tonumber(ARGV[7])
local I = {KEYS[#KEYS - 6], KEYS[#KEYS - 5], KEYS[#KEYS - 4], KEYS[#KEYS - 3], KEYS[#KEYS - 2], KEYS[#KEYS - 1]}
single(KEYS[#KEYS])
DT, TOUCH, TORDER, HC = {}, {}, {}, {}
local now, max, bound, exp = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
recover(I, now)
-- {task key, host, limit, due}
local list = {}
if nh >= 0 then
  for k = 1, nh do
    local t = KEYS[k]
    list[k] = {t, string.match(t, '{([^}]*)}'), tonumber(ARGV[6 + 2 * k]), ARGV[7 + 2 * k] == '1'}
  end
else
  local scan, prefix, ex, nex = tonumber(ARGV[8]), ARGV[9], {}, #ARGV - 9
  for i = 10, #ARGV do ex[ARGV[i]] = true end
  -- Hosts without their scores (Redis prints each with %.17g): only the max-th one's is used.
  local ready = redis.call('ZRANGE', I[3], 0, math.min(max + nex, scan) - 1)
  local nranked, rank, seen, hosts = 0, {}, {}, {}
  for i = 1, #ready do
    local h = ready[i]
    if not ex[h] then
      rank[h] = nranked nranked = nranked + 1
      if #hosts < max then hosts[#hosts + 1] = h seen[h] = true end
      if nranked == max then bound = redis.call('ZSCORE', I[3], h) end
    end
  end
  local due = {}
  for _, h in ipairs(redis.call('ZRANGEBYSCORE', I[4], '-inf', now, 'LIMIT', 0, scan)) do
    due[h] = true
    if not ex[h] and not seen[h] then hosts[#hosts + 1] = h seen[h] = true end
  end
  local single = #hosts == 1
  if single or nranked < max then bound = '+inf' end
  for k, h in ipairs(hosts) do
    local lim = max
    if not single then lim = math.max(1, max - (rank[h] or 0)) end
    list[k] = {prefix .. ':{' .. h .. '}:t', h, lim, due[h] or false}
  end
end
-- Each candidate's entries scoring <= bound (at most limit, at least its best one). Its best
-- two are read first: with many hosts the second is mostly worse than bound, and then also
-- the host's new head once its best is taken (settle reads no head: rh). Only a host with
-- more to give is read again, limit + 1 entries, whose last (when read) is its next head.
local cands, tops, taken, whole = {}, {}, {}, {}
do
  local tk, hs = {}, {}
  for k, c in ipairs(list) do tk[k] = c[1] hs[k] = c[2] end
  nbfill(tk, hs)
end
local b = tonumber(bound)
if bound == '+inf' then b = math.huge end
for k, c in ipairs(list) do
  use_t(c[1])
  if c[4] then refresh(now) end
  if c[3] > 0 then
    local top = redis.call('ZRANGE', R, 0, 1, 'WITHSCORES')
    whole[k] = true
    if c[3] > 1 and top[4] and tonumber(top[4]) <= b then
      top = redis.call('ZRANGEBYSCORE', R, '-inf', bound, 'WITHSCORES', 'LIMIT', 0, c[3] + 1)
      whole[k] = false
    end
    tops[k], taken[k] = top, 0
    for i = 1, math.min(#top, 2 * c[3]), 2 do
      local sc = tonumber(top[i + 1])
      if i > 1 and sc > b then break end
      cands[#cands + 1] = {sc, k, top[i], top[i + 1]}
    end
  end
end
-- Mostly in order already (hosts by their best score, one task each): sorted only if not.
for i = 2, #cands do
  if cands[i][1] < cands[i - 1][1] then table.sort(cands, function(a, b) return a[1] < b[1] end) break end
end
-- Each task's record goes back as stored, for the client to decode (replies.ts toTakeRows),
-- and the lease is its entry in GL (the record is not rewritten): a take reads no record's
-- fields here. Its priority comes from its score.
-- The leases go into GL in one ZADD (a command per task costs more than the table). The reply
-- gives each token without the prefix the client sent (ARGV[6]).
local out, exps, gl, pre = {}, istr(exp), {}, ARGV[6]
for i = 1, math.min(max, #cands) do
  local c = cands[i]
  local id = c[3]
  use_t(list[c[2]][1])
  local b = bucketof(id)
  local v = redis.call('HGET', tkey(b), id)
  redis.call('ZREM', R, id) count(math.floor(c[1] / SEQ) - 2048, -1)
  -- The token ends with the record's bucket, a hint for the ack (leasedraw).
  local tail = ':' .. istr(i) .. '.' .. istr(b)
  gl[2 * i - 1] = exps gl[2 * i] = hostof(T) .. '|' .. id .. '|' .. pre .. tail
  mark('rr') tot('l', 1)
  taken[c[2]] = taken[c[2]] + 1
  out[i] = {list[c[2]][2], id, tail, v}
end
for j = 1, #gl, 2000 do redis.call('ZADD', GL, unpack(gl, j, math.min(j + 1999, #gl))) end
for k, n in pairs(taken) do
  local h = tops[k][2 * n + 2]
  if n > 0 and (h or whole[k]) then TOUCH[list[k][1]].rh = h or false end
end
settle(I)
return out
