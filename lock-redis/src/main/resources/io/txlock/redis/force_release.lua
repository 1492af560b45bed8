-- An operator's forced release: frees the lock only if it still holds the grant with this token, then hands it to the
-- first live waiter (see queue.lua), as a release does, and wakes quorum mode's hint subscribers.
-- KEYS[1] the lock key, KEYS[2] the fencing counter, KEYS[3] the queue; ARGV[1] the release
-- channel of the lock, ARGV[2] the token.
-- Returns 1 if freed, 0 if the key is gone or holds another grant (nothing changed).
local current = redis.call('GET', KEYS[1])
if current and string.match(current, '^(%d+) ') == ARGV[2] then
  redis.call('PUBLISH', ARGV[1], '')
  if not hand_off(KEYS[1], KEYS[2], KEYS[3], nil, true) then
    redis.call('DEL', KEYS[1])
  end
  return 1
end
return 0
