--[[
PUBLISH, after apply.lua: one index bucket (one slot). KEYS: snap, totals, ready index, due
index, dead hosts, leased hosts. ARGV: per host: host, n, then its snapshot's n fields. Applies
each snapshot (apply). Many hosts per call: one call per bucket per turn of the event loop.
Answers the number of snapshots applied.
]]
local i, applied = 1, 0
while i <= #ARGV do
  local n = tonumber(ARGV[i + 1])
  local S = {}
  for j = 1, n do S[j] = ARGV[i + 1 + j] end
  applied = applied + apply(KEYS, ARGV[i], S)
  i = i + 2 + n
end
return applied
