-- One attempt to take a lock, fair to the waiters queued for it: it is granted only if it is free and nobody
-- waits, or if this attempt is the first waiter.
-- KEYS[1] the lock key, KEYS[2] the fencing counter, KEYS[3] the queue (see queue.lua), KEYS[4] the attempt's own
-- list, where the lock is pushed when it is handed to it;
-- ARGV[1] lease in ms, ARGV[2] the claim of this attempt ("<grant id> <host> <owner id>", chosen by the client),
-- ARGV[3] how long this attempt's place in the queue lasts, in ms (0: do not queue), ARGV[4] '1' if this attempt may
-- have a place already (it refreshes it then), '0' if it surely has none.
-- A key of the same owner (host and owner id) under another claim is taken over: an owner never asks for a lock
-- it holds, so it is the grant of an earlier attempt whose answer was lost, and asking again must not lock the
-- owner out. A key holding this very claim was handed to this attempt while it waited.
-- Returns {1, value} when granted, {0, pttl of the holder} when not (the attempt is queued if ARGV[3] > 0).
local micros = now_micros()
local current = redis.call('GET', KEYS[1])
if current then
  local holder = claim_of(current)
  if holder == ARGV[2] then
    redis.call('DEL', KEYS[4])
    return {1, current}
  end
  if string.match(holder or '', '^%S+ (.*)$') == string.match(ARGV[2], '^%S+ (.*)$') then
    redis.call('DEL', KEYS[1])
    current = false
  end
end
if not current then
  local head = live_head(KEYS[3], math.floor(micros / 1000))
  if not head or head == ARGV[2] then
    if head then
      redis.call('LPOP', KEYS[3])
    end
    return {1, grant(KEYS[1], KEYS[2], ARGV[2], ARGV[1], micros)}
  end
  -- free, and another waiter's turn (its predecessor's lease ran out, or the predecessor left): hand it over
  hand_off(KEYS[1], KEYS[2], KEYS[3], micros, true)
end
local place = tonumber(ARGV[3])
if place > 0 then
  local entry = string.format('%.0f ', math.floor(micros / 1000) + place) .. ARGV[1] .. ' ' .. KEYS[4] .. ' ' .. ARGV[2]
  local index = ARGV[4] == '1' and find_place(KEYS[3], ARGV[2])
  if index then
    redis.call('LSET', KEYS[3], index, entry)
  else
    redis.call('RPUSH', KEYS[3], entry)
  end
  redis.call('PEXPIRE', KEYS[3], place)
end
return {0, redis.call('PTTL', KEYS[1])}
