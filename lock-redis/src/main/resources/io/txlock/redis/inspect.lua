-- Reads a lock atomically. KEYS[1] the lock key.
-- Returns nil if free, else {value, pttl, server time in ms}.
local value = redis.call('GET', KEYS[1])
if not value then
  return false
end
local time = redis.call('TIME')
return {value, redis.call('PTTL', KEYS[1]), tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)}
