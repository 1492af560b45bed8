-- Compare-and-delete: frees the lock only if it still holds this grant's claim, then hands it to the first live
-- waiter (see queue.lua), if any.
-- KEYS[1] the lock key, KEYS[2] the fencing counter, KEYS[3] the queue; ARGV[1] the grant's claim,
-- ARGV[2] a channel to publish the release on (quorum mode's hints), or '' for none.
-- Returns 1 if deleted, 0 if the key is gone or belongs to another grant (then it only hands over a lock that is
-- free, as any script here does).
local current = redis.call('GET', KEYS[1])
if current and claim_of(current) == ARGV[1] then
  if ARGV[2] ~= '' then
    redis.call('PUBLISH', ARGV[2], '')
  end
  if not hand_off(KEYS[1], KEYS[2], KEYS[3], nil, true) then
    redis.call('DEL', KEYS[1])
  end
  return 1
end
hand_off(KEYS[1], KEYS[2], KEYS[3], nil, false)
return 0
