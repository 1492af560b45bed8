-- A waiter gives up (its wait is over, or it was cancelled): it leaves the queue at once, and a lock handed to it
-- meanwhile is freed and handed to the next waiter.
-- KEYS[1] the lock key, KEYS[2] the fencing counter, KEYS[3] the queue, KEYS[4] the waiter's own list (a lock pushed
-- there is the one handed to it); ARGV[1] the waiter's claim.
-- Returns 1 if the lock had been handed to it (and is passed on now), else 0.
leave_queue(KEYS[3], ARGV[1])
redis.call('DEL', KEYS[4])
local current = redis.call('GET', KEYS[1])
local handed = 0
if current and claim_of(current) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  handed = 1
end
hand_off(KEYS[1], KEYS[2], KEYS[3], nil, handed == 1)
return handed
