-- Compare-and-delete: frees the lock only if it still holds one of this grant's values, then wakes waiters.
-- KEYS[1] the lock key; ARGV[1] the release channel of the lock, ARGV[2..] the values this grant may hold.
-- Returns 1 if deleted, 0 if the key is gone or belongs to another grant (nothing changed).
local current = redis.call('GET', KEYS[1])
for i = 2, #ARGV do
  if current == ARGV[i] then
    redis.call('DEL', KEYS[1])
    redis.call('PUBLISH', ARGV[1], '')
    return 1
  end
end
return 0
