--[[
The prelude of every script but PUBLISH: the primitives the host operations share
(scripts.ts puts it first). Host scripts get the six keys of one host (keys.ts HostKeys, one
slot) and do one atomic change to that host's state; each ends with snapshot(), the host's
counts and index scores, which the client then hands to PUBLISH on the global slot (Cluster);
on a single Redis the scripts that carry them (batch.lua, take.lua, enqueue-many.lua) keep the
index by deltas instead (DT / TOUCH below). Time always comes in as an argument (the injected
Clock), never from Redis TIME, so a FakeClock drives the scripts.

Lua numbers are doubles: scores stay below 2^53 (REDIS_PRIORITY_MIN in ports/frontier.ts,
SEQ_LIMIT in keys.ts), and no number is ever turned into a string with tostring/.. except
small ones (priorities, indexes), because Lua 5.1 prints 14 significant digits.

Task records are msgpack arrays, fields by position (FS ... FRU below; docs/redis.md, _Task
records_): s state (r ready, d delayed, l leased, f done, x dead), u url (packed by the
client: without scheme and host when they are the usual ones, codec.ts packUrl), j job, p
priority, dp depth, a attempts, g generation, c first seq, q seq (false when equal to c), k
lease token, o owner, e lease expiry, err last error (also the dead reason), da deadAt, ru (15)
the URL to request when it differs from u (packed the same way; absent for most tasks). Absent
values are false and trailing ones are left out, so a ready task is ~60 bytes. A field added
later takes the next position (16) and old records simply lack it. task-record.ts packs new records
on the client, byte for byte as cmsgpack would.

Replies: task() below writes a task row, snapshot() a snapshot, in the orders of the tables
TASK_ROW and SNAPSHOT of replies.ts, which decodes them.
]]
local T, R, D, L, X, M
-- Selects the host whose keys are KEYS[6k-5 .. 6k] (a BATCH call carries several hosts).
local function use(k)
  local b = (k - 1) * 6
  T, R, D, L, X, M = KEYS[b + 1], KEYS[b + 2], KEYS[b + 3], KEYS[b + 4], KEYS[b + 5], KEYS[b + 6]
end
use(1)
-- Selects the host whose task key (bucket 0) is t: its other keys are named after it. Named
-- once per host per call (making five key strings costs more than a redis.call; a call
-- selects a host again in SETTLE, and a turn's acks are often on one host).
local KC = {}
local function use_t(t)
  local k = KC[t]
  if not k then
    local b = string.sub(t, 1, -2)
    k = {b .. 'r', b .. 'd', b .. 'l', b .. 'x', b .. 'm'}
    KC[t] = k
  end
  T, R, D, L, X, M = t, k[1], k[2], k[3], k[4], k[5]
end
local FS, FU, FJ, FP, FDP, FA, FG, FC, FQ, FK, FO, FE, FERR, FDA, FRU = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
local NF = 15
local SEQ = 2199023255552
local function score(p, q) return (p + 2048) * SEQ + q end
-- A number handed to redis.call is printed by Redis with %.17g: for a 16-digit score that is
-- glibc's multi-precision float printing, the costliest part of a ZADD from Lua (12 % of an
-- enqueue's Redis CPU). An integer is printed here with %d instead, which is exact below
-- 2^53 (small counts are kept: most are 1). Strings and other numbers pass as they are.
local ISTR = {}
local function istr(x)
  local s = ISTR[x]
  if s then return s end
  if type(x) ~= 'number' or x % 1 ~= 0 or x >= 9007199254740992 or x <= -9007199254740992 then return x end
  s = string.format('%d', x)
  if x > -64 and x < 1024 then ISTR[x] = s end
  return s
end
local function qof(r) return r[FQ] or r[FC] end
-- The task hash is split into buckets by linear hashing, so that each stays a listpack (Redis
-- keeps a hash of up to 512 short entries as one compact array: ~70 bytes a record instead of
-- ~110): bucket 0 is T, bucket b > 0 is T .. b, the count is the meta field tb (absent: 1),
-- and a bucket is split each time the host's records exceed PER_BUCKET per bucket. A record's
-- bucket follows from the first four base64url characters of its id (24 random bits). 64 per
-- bucket (64-128 records each) costs the same memory as 200 and less CPU: a listpack lookup
-- scans its entries (100 hosts x 2000 URLs: lease+ack 66-75 against 78-88 us of Redis CPU).
local PER_BUCKET = 64
-- Index upkeep by deltas (one Redis: BATCH, TAKE and ENQUEUE_MANY keep it, in settle.lua):
-- DT sums the call's changes to the totals, TOUCH marks per host (keyed by its task key T) what
-- moved: ra / da the least ready score / due time added, rr / dr a ready entry / a delayed
-- entry or lease removed, la / lr a lease added / removed, xa / xr a dead letter added /
-- removed, nr records added. Both nil elsewhere (Cluster, single-host scripts): no cost.
local DT, TOUCH, TORDER = nil, nil, nil
-- GL: on one Redis (layout 3), the one zset of every lease, member host|suffix|token, score expiry
-- (the scripts that keep the index set it): a lease or an ack is one ZADD / ZREM there, and
-- touches no per-host lease zset, due entry or leased-hosts set; TAKE takes expired leases
-- back from it. nil on a Cluster: the host's lease zset L (a script touches one slot).
-- TBK: with GL, the hash host → task hash bucket count (hosts of one bucket absent), a copy of
-- each meta hash's tb, so a call reads the counts of all its hosts in one HMGET (nbfill).
-- NRK: with GL, the hash host → its number of records (what decides task hash splits; SETTLE).
local GL, TBK, NRK = nil, nil, nil
-- A global key beside GL ('{prefix}:leases'): '{prefix}:' .. name.
local function besideGL(k, name) return string.sub(k, 1, -7) .. name end
local function single(k) GL = k TBK = besideGL(k, 'tb') NRK = besideGL(k, 'nr') end
local HOSTOF = {}
local function hostof(t)
  local h = HOSTOF[t]
  if not h then h = string.match(t, '{([^}]*)}') HOSTOF[t] = h end
  return h
end
local function tot(f, d) if DT then DT[f] = (DT[f] or 0) + d end end
local function mark(kind, v)
  if not TOUCH then return end
  local t = TOUCH[T]
  if not t then t = {} TOUCH[T] = t TORDER[#TORDER + 1] = T end
  if kind == 'ra' or kind == 'da' then
    if not t[kind] or v < t[kind] then t[kind] = v end
  elseif kind == 'nr' then t.nr = (t.nr or 0) + v
  else t[kind] = true end
end
-- The base64url alphabet by byte (A-Z a-z 0-9 - _): a constructor, as every call builds it
-- anew (a loop of string.byte cost 17,000 instructions a call).
local B64 = {
  [65] = 0, [66] = 1, [67] = 2, [68] = 3, [69] = 4, [70] = 5, [71] = 6, [72] = 7, [73] = 8, [74] = 9, [75] = 10,
  [76] = 11, [77] = 12, [78] = 13, [79] = 14, [80] = 15, [81] = 16, [82] = 17, [83] = 18, [84] = 19, [85] = 20, [86] = 21,
  [87] = 22, [88] = 23, [89] = 24, [90] = 25, [97] = 26, [98] = 27, [99] = 28, [100] = 29, [101] = 30, [102] = 31, [103] = 32,
  [104] = 33, [105] = 34, [106] = 35, [107] = 36, [108] = 37, [109] = 38, [110] = 39, [111] = 40, [112] = 41, [113] = 42, [114] = 43,
  [115] = 44, [116] = 45, [117] = 46, [118] = 47, [119] = 48, [120] = 49, [121] = 50, [122] = 51, [48] = 52, [49] = 53, [50] = 54,
  [51] = 55, [52] = 56, [53] = 57, [54] = 58, [55] = 59, [56] = 60, [57] = 61, [45] = 62, [95] = 63
}
-- NB: bucket count per host; DLC: delayed count per host (known when read or moved here: an
-- index upkeep that finds none skips reading the delayed zset).
local NB, DLC = {}, {}
local function nbuckets()
  local n = NB[T]
  if not n then
    local v = redis.call('HMGET', M, 'tb', 'dl')
    n = tonumber(v[1]) or 1 NB[T] = n DLC[T] = tonumber(v[2]) or 0
  end
  return n
end
-- One Redis: the bucket counts of these hosts (their task keys; host names alike) in one HMGET
-- per 1000, instead of one per host.
local function nbfill(tkeys, hosts)
  for j = 1, #hosts, 1000 do
    local v = redis.call('HMGET', TBK, unpack(hosts, j, math.min(j + 999, #hosts)))
    for k = j, math.min(j + 999, #hosts) do NB[tkeys[k]] = tonumber(v[k - j + 1]) or 1 end
  end
end
-- nil for an id that is not ours (a redrive of a made-up id): it then lives nowhere.
local function hof(id)
  local a, b, c, d = string.byte(id, 1, 4)
  a, b, c, d = B64[a or 0], B64[b or 0], B64[c or 0], B64[d or 0]
  if not (a and b and c and d) then return nil end
  return ((a * 64 + b) * 64 + c) * 64 + d
end
local function level(n) local l = 1 while l * 2 <= n do l = l * 2 end return l end
-- Bucket keys by host and bucket, made once a call (a number joined to a string is printed).
local TKC = {}
local function tkey(b)
  if b == 0 then return T end
  local c = TKC[T]
  if not c then c = {} TKC[T] = c end
  local k = c[b]
  if not k then k = T .. istr(b) c[b] = k end
  return k
end
local function bucketof(id)
  local n = nbuckets()
  if n == 1 then return 0 end
  local h = hof(id)
  if not h then return 0 end
  local l = level(n)
  local b = h % (2 * l)
  if b >= n then b = h % l end
  return b
end
-- HT, HI, HK: host task key, id and hash key of the record an ack just found by its token's
-- bucket hint (leased() below): its put needs no bucket count (one HMGET less an ack).
local HT, HI, HK = nil, nil, nil
local function tkeyof(id)
  if HI == id and HT == T then return HK end
  return tkey(bucketof(id))
end
-- Splits bucket n - l into itself and the new bucket n: the records whose hash mod 2l is n move.
local function split()
  local n = nbuckets()
  local l = level(n)
  local from = tkey(n - l)
  local all = redis.call('HGETALL', from)
  local moved, fields = {}, {}
  for i = 1, #all, 2 do
    local h = hof(all[i])
    if h and h % (2 * l) == n then
      moved[#moved + 1] = all[i] moved[#moved + 1] = all[i + 1] fields[#fields + 1] = all[i]
    end
  end
  if #fields > 0 then redis.call('HSET', tkey(n), unpack(moved)) redis.call('HDEL', from, unpack(fields)) end
  NB[T] = n + 1 HI = nil
  redis.call('HSET', M, 'tb', n + 1)
  if TBK then redis.call('HSET', TBK, hostof(T), n + 1) end
end
-- HC: in a call that settles (one Redis), the meta hash counts it moved, per host then field,
-- written once per host and field by hcflush (a TAKE or a turn's acks on one host: one HINCRBY,
-- not one per task); elsewhere each count is written at once.
local HC = nil
local function hcount(f, n)
  local h = HC and HC[M]
  if HC and not h then h = {} HC[M] = h end
  if h then h[f] = (h[f] or 0) + n
  elseif redis.call('HINCRBY', M, f, istr(n)) == 0 and f ~= 'done' then redis.call('HDEL', M, f) end
end
-- Writes the counts gathered for meta hash m (all of them when m is nil).
local function hcflush(m)
  if not HC then return end
  for k, h in pairs(HC) do
    if m == nil or k == m then
      for f, n in pairs(h) do
        if n ~= 0 and redis.call('HINCRBY', k, f, istr(n)) == 0 and f ~= 'done' then redis.call('HDEL', k, f) end
      end
      HC[k] = nil
    end
  end
end
-- Before a call adds more than a bucket's worth to one host (a bulk enqueue), the splits it
-- will need are made first: a bucket that grows past 512 entries becomes a hashtable for good.
-- The host's records: every one is pending, leased, done or dead.
-- (One Redis: the host's leases are in GL, not counted here; only the bucket sizing, never
-- a count anyone reads, is off by them.)
local function records()
  hcflush(M)
  local m, n = redis.call('HGETALL', M), 0
  if not GL then n = redis.call('ZCARD', L) end
  for i = 1, #m, 2 do
    local k = m[i]
    if k == 'done' or k == 'x' or string.sub(k, 1, 2) == 'p:' then n = n + tonumber(m[i + 1])
    elseif k == 'tb' then NB[T] = NB[T] or tonumber(m[i + 1]) end
  end
  return n
end
local function presplit(adding)
  local n = records()
  while n + adding > PER_BUCKET * nbuckets() do split() end
end
local function get(id) local v = redis.call('HGET', tkeyof(id), id) if v then return cmsgpack.unpack(v) end return nil end
local function packed(r)
  if r[FQ] == r[FC] then r[FQ] = false end
  local n = math.max(NF, #r)
  for i = 1, n do if r[i] == nil then r[i] = false end end
  while n > 0 and r[n] == false do r[n] = nil n = n - 1 end
  return cmsgpack.pack(r)
end
local function put(id, r) redis.call('HSET', tkeyof(id), id, packed(r)) end
-- 'p:' .. p by priority: a number made a string costs a sprintf each time.
local PK = {}
local function count(p, n)
  local f = PK[p]
  if not f then f = 'p:' .. p PK[p] = f end
  hcount(f, n)
  tot(f, n) tot('n', n)
end
-- pend in two steps: the record's new state, then its queue entry and counts.
local function state(r, nb, q, now)
  r[FQ] = q
  if nb <= now then r[FS] = 'r' else r[FS] = 'd' end
end
local function enter(id, r, nb, q)
  if r[FS] == 'r' then redis.call('ZADD', R, score(r[FP], q), id) mark('ra', score(r[FP], q))
  else redis.call('ZADD', D, nb, id) DLC[T] = redis.call('HINCRBY', M, 'dl', 1) mark('da', nb) end
  count(r[FP], 1)
end
local function pend(id, r, nb, q, now) state(r, nb, q, now) enter(id, r, nb, q) put(id, r) end
-- (GL: the lease's entry went in leased(), which its callers ran first.)
local function unlease(id, r)
  if not GL then redis.call('ZREM', L, id) mark('lr') mark('dr') end
  r[FK] = false r[FO] = false r[FE] = false tot('l', -1)
end
-- A ready task leased until exp (TAKE and LEASE). With GL the lease is its entry there alone,
-- host|suffix|token: the record is not rewritten (it stays as it was while ready; token and
-- expiry are set here for the reply only), so a lease writes no record, and an ack's ZREM of
-- that entry is its token check.
local function take(id, r, exp, owner, token)
  redis.call('ZREM', R, id) count(r[FP], -1)
  if GL then
    -- The token ends with the record's bucket, a hint for the ack (a split may move it: then
    -- the ack looks it up the usual way).
    token = token .. '.' .. bucketof(id)
    redis.call('ZADD', GL, exp, hostof(T) .. '|' .. id .. '|' .. token) r[FK] = token r[FE] = exp
  else
    redis.call('ZADD', L, exp, id) mark('la') mark('da', exp)
    r[FS] = 'l' r[FK] = token r[FO] = owner r[FE] = exp put(id, r)
  end
  mark('rr') tot('l', 1)
end
-- The task's record if tok is its current lease (with GL: that lease's entry, removed here).
-- With GL: the record as stored and its hash key, or nil when tok is not the task's lease.
local function leasedraw(id, tok)
  if redis.call('ZREM', GL, hostof(T) .. '|' .. id .. '|' .. tok) == 0 then return nil end
  -- (Searched from near its end: the hint is the last few characters.)
  local b = tonumber(string.match(tok, '%.(%d+)$', -8))
  if b then
    local k = tkey(b)
    local v = redis.call('HGET', k, id)
    if v then HT, HI, HK = T, id, k return v, k end
  end
  local k = tkey(bucketof(id))
  return redis.call('HGET', k, id) or nil, k
end
local function leased(id, tok)
  if GL then
    local v = leasedraw(id, tok)
    if v then return cmsgpack.unpack(v) end
    return nil
  end
  local r = get(id)
  if r and r[FS] == 'l' and r[FK] == tok then return r end
  return nil
end
local function task(id, r, extra)
  return {id, r[FU], r[FJ], r[FP], r[FDP], r[FA], r[FG], r[FK] or false, r[FE] or false, r[FERR] or false, r[FC], extra or false, r[FRU] or false}
end
-- Due delayed tasks become ready (with the seq they entered with) and expired leases come
-- back with the same seq and attempts: at-least-once, and the task keeps its place. Bounded
-- per call so one script never blocks Redis for long; the rest follow on the next calls.
local function refresh(now)
  local changed = false
  local due = redis.call('ZRANGEBYSCORE', D, '-inf', now, 'LIMIT', 0, 1000)
  for _, id in ipairs(due) do
    local r = get(id)
    redis.call('ZREM', D, id) r[FS] = 'r' redis.call('ZADD', R, score(r[FP], qof(r)), id) put(id, r)
    mark('dr') mark('ra', score(r[FP], qof(r)))
    changed = true
  end
  if #due > 0 then DLC[T] = redis.call('HINCRBY', M, 'dl', -#due) end
  if GL then return changed end
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', L, '-inf', now, 'LIMIT', 0, 1000)) do
    local r = get(id)
    unlease(id, r) r[FS] = 'r' redis.call('ZADD', R, score(r[FP], qof(r)), id) count(r[FP], 1) put(id, r)
    mark('ra', score(r[FP], qof(r)))
    changed = true
  end
  return changed
end
-- {version, best ready score or '', due time or '', pending, leased, done, dead, prio, n, ...}
-- One HGETALL of the meta hash gives the version, the done, dead (x) and delayed (dl) counts
-- and the pending counts per priority (pending = their sum: every entry to or exit from
-- ready/delayed moves them); the delayed and leased zsets are read only when not empty.
local function snapshot(changed)
  local m = redis.call('HGETALL', M)
  local v, done, dead, delayed, pending, prio = 0, 0, 0, 0, 0, {}
  for i = 1, #m, 2 do
    local k = m[i]
    if k == 'v' then v = tonumber(m[i + 1])
    elseif k == 'done' then done = tonumber(m[i + 1])
    elseif k == 'x' then dead = tonumber(m[i + 1])
    elseif k == 'dl' then delayed = tonumber(m[i + 1])
    elseif k == 'tb' then NB[T] = NB[T] or tonumber(m[i + 1])
    elseif string.sub(k, 1, 2) == 'p:' then
      local c = tonumber(m[i + 1])
      prio[#prio + 1] = string.sub(k, 3) prio[#prio + 1] = c pending = pending + c
    end
  end
  if changed then v = v + 1 redis.call('HSET', M, 'v', v) end
  local leased = redis.call('ZCARD', L)
  -- Every record is pending, leased, done or dead: split while the buckets are too full (a
  -- few per call at most; each moves about half of one bucket).
  local records, splits = pending + leased + done + dead, 0
  while records > PER_BUCKET * nbuckets() and splits < 4 do split() splits = splits + 1 end
  local head = redis.call('ZRANGE', R, 0, 0, 'WITHSCORES')[2] or ''
  local d, l
  if delayed > 0 then d = redis.call('ZRANGE', D, 0, 0, 'WITHSCORES')[2] end
  if leased > 0 then l = redis.call('ZRANGE', L, 0, 0, 'WITHSCORES')[2] end
  local due = ''
  if d and l then due = math.min(tonumber(d), tonumber(l)) elseif d or l then due = tonumber(d or l) end
  local out = {v, head, due, pending, leased, done, dead}
  for i = 1, #prio do out[#out + 1] = prio[i] end
  return out
end
