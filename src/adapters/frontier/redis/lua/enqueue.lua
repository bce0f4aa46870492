--[[
ENQUEUE, a host operation (a host script after the prelude, and a BATCH operation).
ARGV: now, room, then per request: hash, url, job, priority, depth, notBefore, force, seq,
request URL (packed; empty when it is url itself). Finds the task by linear probing (hash,
hash~1, ...): ids stay stable because records are never deleted, and a hash collision cannot
hide a URL. Reply: replies.ts REPLY.enqueue.
]]
local now, room = tonumber(ARGV[1]), tonumber(ARGV[2])
local added, dups, dropped = 0, 0, 0
if (#ARGV - 2) / 9 > PER_BUCKET then presplit((#ARGV - 2) / 9) end
for i = 3, #ARGV, 9 do
  local h, url, job = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local p, dp, nb, force, q = tonumber(ARGV[i + 3]), tonumber(ARGV[i + 4]), tonumber(ARGV[i + 5]), ARGV[i + 6] == '1', tonumber(ARGV[i + 7])
  local made = false
  -- One Redis: most URLs that reach Redis are new (the client's cache answers the known), so
  -- the record is first written outright at its hash (HSETNX): a new URL costs no lookup.
  -- Taken already (a duplicate, or a collision), the lookup below follows as before.
  if GL and (force or room > 0) then
    local c = {false, url, job, p, dp, 0, 0, q}
    if ARGV[i + 8] ~= '' then c[FRU] = ARGV[i + 8] end
    state(c, nb, q, now)
    if redis.call('HSETNX', tkeyof(h), h, packed(c)) == 1 then
      enter(h, c, nb, q) mark('nr', 1)
      added = added + 1 room = room - 1 made = true
    end
  end
  local id, r, n = h, nil, 0
  if not made then r = get(h) end
  while r and not (r[FU] == url and r[FJ] == job) do n = n + 1 id = h .. '~' .. n r = get(id) end
  if made then
  elseif r then
    if force and (r[FS] == 'f' or r[FS] == 'x') then
      if r[FS] == 'f' then redis.call('HINCRBY', M, 'done', -1) tot('f', -1)
      else redis.call('ZREM', X, id) redis.call('HINCRBY', M, 'x', -1) tot('x', -1) mark('xr') end
      r[FDA] = false r[FERR] = false r[FP] = p r[FDP] = dp r[FA] = 0 r[FG] = r[FG] + 1
      pend(id, r, nb, q, now) added = added + 1 room = room - 1
    else dups = dups + 1 end
  elseif not force and room <= 0 then dropped = dropped + 1
  else
    local r = {false, url, job, p, dp, 0, 0, q}
    if ARGV[i + 8] ~= '' then r[FRU] = ARGV[i + 8] end
    pend(id, r, nb, q, now) mark('nr', 1)
    added = added + 1 room = room - 1
  end
end
return {added, dups, dropped, snapshot(added > 0)}
