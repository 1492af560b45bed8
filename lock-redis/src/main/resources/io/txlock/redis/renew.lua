-- Compare-and-pexpire: extends the lock only if it still holds this grant's claim.
-- KEYS[1] the lock key; ARGV[1] lease in ms, ARGV[2] the grant's claim.
-- Returns 1 if extended, 0 if the key is gone or belongs to another grant.
local current = redis.call('GET', KEYS[1])
if current and string.match(current, '^%d+ %d+ (.*)$') == ARGV[2] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return 0
