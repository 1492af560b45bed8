-- Compare-and-pexpire: extends the lock only if it still holds one of this grant's values.
-- KEYS[1] the lock key; ARGV[1] lease in ms, ARGV[2..] the values this grant may hold.
-- Returns 1 if extended, 0 if the key is gone or belongs to another grant.
local current = redis.call('GET', KEYS[1])
for i = 2, #ARGV do
  if current == ARGV[i] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[1])
  end
end
return 0
