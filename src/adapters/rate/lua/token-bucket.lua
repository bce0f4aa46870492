--[[
TAKE_TOKENS (redis-token-bucket.ts). KEYS[1]: the bucket hash {t tokens, at ms}.
ARGV: now, ratePerSec, burst, want, min.
Reply: {granted, waitMs}: granted in [min, want], or 0 with the ms until min tokens exist.
]]
local now, rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local want, min = tonumber(ARGV[4]), tonumber(ARGV[5])
local b = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens, at = tonumber(b[1]), tonumber(b[2])
if not tokens then tokens = burst at = now end
if now > at then tokens = math.min(burst, tokens + (now - at) * rate / 1000) at = now end
local granted = math.min(want, math.floor(tokens + 1e-9))
local wait = 0
if granted < min then
  granted = 0
  wait = math.ceil((min - tokens) * 1000 / rate - 1e-9)
else
  tokens = tokens - granted
end
-- A bucket left alone for burst/rate seconds is full, which is what a missing key means:
-- expiring it then keeps memory bounded by the hosts active recently.
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'at', at)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return {granted, wait}
