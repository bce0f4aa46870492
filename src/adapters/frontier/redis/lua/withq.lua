--[[
withq(head, q): a new record, its head (packed by the client, task-record.ts) then its seq q as
cmsgpack packs it (the smallest integer encoding), in one string: one struct.pack where
`head .. cmsgpack.pack(q)` made two strings. For ENQUEUE_MANY.
]]
local function withq(head, q)
  if q >= 65536 then
    if q < 4294967296 then return struct.pack('>c0BI4', head, 206, q) end
    return struct.pack('>c0BI8', head, 207, q)
  elseif q >= 256 then return struct.pack('>c0BH', head, 205, q)
  elseif q >= 128 then return struct.pack('>c0BB', head, 204, q) end
  return struct.pack('>c0B', head, q)
end
