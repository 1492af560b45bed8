-- An operator's forced release: deletes the lock only if it still holds the grant with this token, then wakes waiters.
-- KEYS[1] the lock key; ARGV[1] the release channel of the lock, ARGV[2] the token.
-- Returns 1 if deleted, 0 if the key is gone or holds another grant (nothing changed).
local current = redis.call('GET', KEYS[1])
if current and string.match(current, '^(%d+) ') == ARGV[2] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[1], '')
  return 1
end
return 0
