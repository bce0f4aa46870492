--[[
BATCH, after the prelude, apply.lua and settle.lua: many host operations in one script call
(docs/redis.md, _Batched per turn of the event loop_). KEYS: one per operation, the host's task
hash (the host's other keys are named after it, same slot), so the same host may appear
several times; then, on a single Redis, the six keys of the index bucket and GL. ARGV: 1 when
those index keys are there, else 0; then per operation: op index (scripts.ts BATCH_OPS),
argument count, the arguments the single-host script takes. Each operation runs as that script
would, in order, and answers {1, its reply} or {0, error message} (replies.ts BATCH_ENTRY): one
failing operation (pcall) neither stops nor undoes the others. On one Redis all of a turn's
operations on every host go in one call, which keeps the index by deltas (settle), so replies
carry no snapshot (an empty one) and no PUBLISH follows; on a Cluster one call per host (a
script may touch one slot only), each host's snapshot taken once at the end, and the client
publishes. The line --@ops is replaced by the operations' bodies, ops[k] = function(ARGV) ...
end (scripts.ts).
]]
local inline = ARGV[1] == '1'
local I = nil
if inline then
  local n = #KEYS
  I = {KEYS[n - 6], KEYS[n - 5], KEYS[n - 4], KEYS[n - 3], KEYS[n - 2], KEYS[n - 1]}
  single(KEYS[n])
  DT, TOUCH, TORDER, HC = {}, {}, {}, {}
end
-- Cluster: a host's snapshot is taken once per call, after its last operation, not once per
-- operation (a turn's acks are often on one host): each operation gets a placeholder table,
-- filled in at the end with the host's final snapshot. Its version moves once if any
-- operation changed. One Redis: no snapshot at all (an empty placeholder).
local host_snapshot = snapshot
local deferred, order, current = {}, {}, 1
local function snapshot(changed)
  if inline then return {} end
  local d = deferred[T]
  if not d then d = {ph = {}, changed = false} deferred[T] = d order[#order + 1] = T end
  d.changed = d.changed or changed
  d.k = current
  return d.ph
end
local ops = {}
--@ops
local out, i, k = {}, 2, 1
while i <= #ARGV do
  local op, n = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  -- Made at its size at once (filled one by one it grows 1, 2, 4, 8: a reallocation each).
  local a = {unpack(ARGV, i + 2, i + 1 + n)}
  use_t(KEYS[k])
  current = k
  local ok, res = pcall(ops[op], a)
  if ok then out[k] = {1, res}
  elseif type(res) == 'table' and res.err then out[k] = {0, res.err}
  else out[k] = {0, tostring(res)} end
  i = i + 2 + n
  k = k + 1
end
if inline then settle(I)
else
  for _, t in ipairs(order) do
    local d = deferred[t]
    use_t(KEYS[d.k])
    for j, v in ipairs(host_snapshot(d.changed)) do d.ph[j] = v end
  end
end
return out
