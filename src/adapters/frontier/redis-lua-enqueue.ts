/**
 * ENQUEUE_MANY: a whole enqueue call on a single Redis, in one round trip (never sent to a
 * Cluster: it names host keys it computes from the prefix). Most URLs reaching Redis are new,
 * so the script's per-URL work is kept to the least: the client packs each new record
 * (redis-record.ts) and the script adds only its seq; one HSETNX writes it, and its queue
 * entry, pending count and index marks are gathered per host and written once per host (one
 * ZADD with all its members, one HINCRBY per priority). A URL that is forced, finds its hash
 * taken (a duplicate or a collision) or finds no room takes the general path, the ENQUEUE body
 * of redis-lua.ts, with the arguments unpacked from its record: same result as before.
 */
import { APPLY, BATCH_BODIES, PRELUDE } from './redis-lua.js';
import { SETTLE } from './redis-lua-batch.js';

/**
 * The FIFO sequence, the pending count (so maxPending is exact: each URL sees the room the
 * previous ones left), the host set and every host's share (a host's general-path URLs under
 * pcall: a failing one neither stops nor undoes the others, and the index is kept for all
 * that ran). KEYS: seq, host set, then the index bucket's six keys and GL. ARGV: now,
 * maxPending (-1: none), the number of requests, the key prefix, then per host: host, its
 * number of requests, its number of arguments, and per request: hash, record head, then
 * either the priority (the usual request: ready now, not forced, no record tail) or '*',
 * priority, notBefore, flags (1: force, 2: a record tail follows) and the record tail if any. Answers {added, duplicates, dropped, error or
 * false}, or {-1, last seq} (nothing written) when the sequence would pass 2^41.
 */
export const ENQUEUE_MANY = `${PRELUDE}${APPLY}${SETTLE}
local I = {KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]}
single(KEYS[9])
local now, maxp, total, prefix = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local first = tonumber(redis.call('GET', KEYS[1]) or '0') + 1
if first + total > SEQ then return {-1, first + total - 1} end
redis.call('INCRBY', KEYS[1], total)
local room = 4503599627370496
if maxp >= 0 then room = maxp - tonumber(redis.call('HGET', I[2], 'n') or '0') end
DT, TOUCH, TORDER = {}, {}, {}
local function snapshot() return {} end
local function enqueue(ARGV)
${BATCH_BODIES.enqueue}
end
local hosts, i = {}, 5
while i <= #ARGV do hosts[#hosts + 1] = ARGV[i] i = i + 3 + tonumber(ARGV[i + 2]) end
for j = 1, #hosts, 1000 do redis.call('SADD', KEYS[2], unpack(hosts, j, math.min(j + 999, #hosts))) end
local tkeys = {}
for j, h in ipairs(hosts) do
  local t = prefix .. ':{' .. h .. '}:t'
  tkeys[j] = t HOSTOF[t] = h
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
-- One host's share: the new records first written outright, their entries and counts once.
local function share(k)
  local n = tonumber(ARGV[i + 1])
  local j, last = i + 3, i + 2 + tonumber(ARGV[i + 2])
  use_t(tkeys[k])
  if n > PER_BUCKET then presplit(n) end
  local zr, zd, cnt, made, ra, da = {}, nil, {}, 0, nil, nil
  while j <= last do
    local h, rec, x = ARGV[j], ARGV[j + 1] .. cmsgpack.pack(q), ARGV[j + 2]
    local p, nb, force
    if x ~= '*' then p, nb, force = tonumber(x), now, false j = j + 3
    else
      local f = tonumber(ARGV[j + 5])
      p, nb, force = tonumber(ARGV[j + 3]), tonumber(ARGV[j + 4]), f % 2 == 1
      if f >= 2 then rec = rec .. ARGV[j + 6] j = j + 7 else j = j + 6 end
    end
    if not force and room > 0 and redis.call('HSETNX', tkeyof(h), h, rec) == 1 then
      if nb <= now then
        local s = score(p, q)
        zr[#zr + 1] = s zr[#zr + 1] = h
        if not ra or s < ra then ra = s end
      else
        zd = zd or {}
        zd[#zd + 1] = nb zd[#zd + 1] = h
        if not da or nb < da then da = nb end
      end
      cnt[p] = (cnt[p] or 0) + 1
      made = made + 1 room = room - 1
    else general(h, p, nb, force, rec) end
    q = q + 1
  end
  if made == 0 then return end
  zadd(R, zr)
  if zd then zadd(D, zd) DLC[T] = redis.call('HINCRBY', M, 'dl', #zd / 2) mark('da', da) end
  if ra then mark('ra', ra) end
  for p, c in pairs(cnt) do count(p, c) end
  mark('nr', made)
  added = added + made
end
i = 5
for k = 1, #hosts do
  local first_q = q
  local ok, res = pcall(share, k)
  if not ok and not err then err = type(res) == 'table' and res.err or tostring(res) end
  q = first_q + tonumber(ARGV[i + 1])
  i = i + 3 + tonumber(ARGV[i + 2])
end
settle(I)
return {added, dups, dropped, err}
`;
