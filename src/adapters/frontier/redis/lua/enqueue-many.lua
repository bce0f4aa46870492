--[[
ENQUEUE_MANY, after the prelude, apply.lua, settle.lua and withq.lua: an enqueue call on a
single Redis, or one part of a big one (redis-enqueue.ts sends a call's parts in one round trip),
atomic (never sent to a Cluster: it names host keys it computes from the prefix). Most URLs
reaching Redis are new, so the script's per-URL work is kept to the least: the client packs
each new record (task-record.ts) and the script adds only its seq; one HSETNX writes it, and its
queue entry, pending count and index marks are gathered per host and written once per host
(one ZADD with all its members, one HINCRBY per priority). A URL that is forced, finds its hash
taken (a duplicate or a collision) or finds no room takes the general path, the body of
enqueue.lua (put in place of the line --@enqueue, scripts.ts), with the arguments unpacked from
its record: same result as before.

The FIFO sequence, the pending count (so maxPending is exact: each URL sees the room the
previous ones left), the host set and every host's share (a host's general-path URLs under
pcall: a failing one neither stops nor undoes the others, and the index is kept for all that
ran). KEYS: seq, host set, then the index bucket's six keys and GL. ARGV: now, maxPending (-1:
none), the number of requests, the key prefix, the hosts and the requests in their wire form
(enqueue-wire.ts: binary strings read with struct.unpack). Answers replies.ts ENQUEUE_MANY
{added, duplicates, dropped, error or false}, or {-1, last seq} (nothing written) when the
sequence would pass 2^41.
]]
local I = {KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]}
single(KEYS[9])
local now, maxp, total, prefix, HB, RB = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6]
local first = tonumber(redis.call('GET', KEYS[1]) or '0') + 1
if first + total > SEQ then return {-1, first + total - 1} end
redis.call('INCRBY', KEYS[1], total)
local room = 4503599627370496
if maxp >= 0 then room = maxp - tonumber(redis.call('HGET', I[2], 'n') or '0') end
DT, TOUCH, TORDER, HC = {}, {}, {}, {}
local function snapshot() return {} end
local function enqueue(ARGV)
--@enqueue
end
-- Per host: its name, number of requests and their size in RB.
local hosts, counts, sizes, pos = {}, {}, {}, 1
while pos <= #HB do
  local k = #hosts + 1
  hosts[k], counts[k], sizes[k], pos = struct.unpack('>I4c0I4I4', HB, pos)
end
for j = 1, #hosts, 1000 do redis.call('SADD', KEYS[2], unpack(hosts, j, math.min(j + 999, #hosts))) end
local tkeys, bases = {}, {}
for j, h in ipairs(hosts) do
  local b = prefix .. ':{' .. h .. '}:'
  local t = b .. 't'
  tkeys[j] = t bases[j] = b HOSTOF[t] = h
end
nbfill(tkeys, hosts)
local added, dups, dropped, err, q = 0, 0, 0, false, first
-- The general path for one request (its record unpacked for the arguments ENQUEUE takes).
local function general(h, p, nb, force, rec)
  local r = cmsgpack.unpack(rec)
  local f = '0'
  if force then f = '1' end
  local ok, res = pcall(enqueue, {now, math.max(0, room), h, r[FU], r[FJ], p, r[FDP], nb, f, q, r[FRU] or ''})
  if ok then
    added, dups, dropped = added + res[1], dups + res[2], dropped + res[3]
    room = room - res[1]
  elseif not err then err = type(res) == 'table' and res.err or tostring(res) end
end
local function zadd(key, b)
  for j = 1, #b, 2000 do redis.call('ZADD', key, unpack(b, j, math.min(j + 1999, #b))) end
end
-- One host's share, its requests from RB at rp: the new records first written outright,
-- their entries and counts once.
-- The usual share needs the host's task, ready and meta keys alone: the others (named by
-- use_t) only for the general path, delayed entries or splits. Its index entry and record
-- count go in FLT and grew() (no per-host marks).
local FLT = {}
local function share(k, rp)
  local n, t = counts[k], tkeys[k]
  T, R, M = t, bases[k] .. 'r', bases[k] .. 'm'
  if n > PER_BUCKET then use_t(t) presplit(n) end
  local zr, zd, cnt, made, ra, ras, da = {}, nil, {}, 0, nil, nil, nil
  for _ = 1, n do
    local h, p, f, rec, nb, tail
    h, p, f, rec, rp = struct.unpack('>c11hBI4c0', RB, rp)
    local force = false
    if f == 0 then nb = now
    else
      nb, tail, rp = struct.unpack('>dI4c0', RB, rp)
      force = f % 2 == 1
    end
    rec = withq(rec, q)
    if tail and tail ~= '' then rec = rec .. tail end
    if not force and room > 0 and redis.call('HSETNX', tkeyof(h), h, rec) == 1 then
      if nb <= now then
        local s = score(p, q)
        local ss = istr(s)
        zr[#zr + 1] = ss zr[#zr + 1] = h
        if not ra or s < ra then ra, ras = s, ss end
      else
        zd = zd or {}
        zd[#zd + 1] = nb zd[#zd + 1] = h
        if not da or nb < da then da = nb end
      end
      cnt[p] = (cnt[p] or 0) + 1
      made = made + 1 room = room - 1
    else use_t(t) general(h, p, nb, force, rec) end
    q = q + 1
  end
  if made == 0 then return end
  zadd(R, zr)
  if zd then use_t(t) zadd(D, zd) DLC[T] = redis.call('HINCRBY', M, 'dl', #zd / 2) mark('da', da) end
  if ra then FLT[#FLT + 1] = ras FLT[#FLT + 1] = hosts[k] end
  for p, c in pairs(cnt) do count(p, c) end
  grew(t, made)
  added = added + made
end
local rp = 1
for k = 1, #hosts do
  local first_q = q
  local ok, res = pcall(share, k, rp)
  if not ok and not err then err = type(res) == 'table' and res.err or tostring(res) end
  q = first_q + counts[k]
  rp = rp + sizes[k]
end
settle(I)
for j = 1, #FLT, 2000 do redis.call('ZADD', I[3], 'LT', unpack(FLT, j, math.min(j + 1999, #FLT))) end
return {added, dups, dropped, err}
