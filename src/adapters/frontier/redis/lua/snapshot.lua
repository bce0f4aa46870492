--[[
SNAPSHOT, a host script (Cluster repair): the host's snapshot (replies.ts SNAPSHOT), bare.
Its text has no line break of its own (scripts.ts).
]]
return snapshot(false)
