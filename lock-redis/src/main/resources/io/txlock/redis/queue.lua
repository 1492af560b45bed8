-- Shared by the scripts that grant a lock or change its queue of waiters; LuaScript puts it before each of them.
-- A lock's waiters: KEYS[3] a list of their places, first come first, each "<place expires, server ms> <lease ms>
-- <the waiter's own list> <claim>". A place lasts until its waiter refreshes it again or gives up; a waiter that died
-- is dropped once its place expired. The list expires with the last place, so a name nobody waits for leaves nothing
-- behind. A waiter blocks (BLPOP) on its own list, where the lock is pushed when it is handed to it; that list
-- expires with the lease it was handed.

local function claim_of(value)
  return string.match(value, '^%d+ %d+ (.*)$')
end

-- Returns a place's expiry (server ms), lease, the waiter's own list and claim.
local function place_of(entry)
  local expires, lease, handed, claim = string.match(entry, '^(%d+) (%d+) (%S+) (.*)$')
  return tonumber(expires), lease, handed, claim
end

local function now_micros()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000000 + tonumber(time[2])
end

-- Gives the lock to a claim, with the fencing token max(last token + 1, server time in microseconds): it grows
-- across holders and keeps growing when a server without persistence restarts with an empty counter (one key per
-- prefix). The counter is swapped for the clock in one command, and raised above the last token only when the clock
-- is behind it. Returns the lock's value, "<token> <since ms> <claim>".
local function grant(lock_key, fence_key, claim, lease_ms, micros)
  local token = micros
  local last = tonumber(redis.call('SET', fence_key, string.format('%.0f', micros), 'GET') or 0)
  if last >= token then
    token = last + 1
    redis.call('SET', fence_key, string.format('%.0f', token))
  end
  local value = string.format('%.0f %.0f ', token, math.floor(micros / 1000)) .. claim
  redis.call('SET', lock_key, value, 'PX', lease_ms)
  return value
end

-- Returns the index and entry of a claim's place in the queue, or nil.
local function find_place(queue_key, claim)
  local entries = redis.call('LRANGE', queue_key, 0, -1)
  for i, entry in ipairs(entries) do
    local _, _, _, queued = place_of(entry)
    if queued == claim then
      return i - 1, entry
    end
  end
  return nil
end

local function leave_queue(queue_key, claim)
  local _, entry = find_place(queue_key, claim)
  if entry then
    redis.call('LREM', queue_key, 1, entry)
  end
end

-- Drops the waiters at the head of the queue whose place expired; returns the first live one's claim.
local function live_head(queue_key, now_ms)
  while true do
    local entry = redis.call('LINDEX', queue_key, 0)
    if not entry then
      return nil
    end
    local expires, _, _, claim = place_of(entry)
    if expires and expires > now_ms then
      return claim
    end
    redis.call('LPOP', queue_key)
  end
end

-- If the lock is free (known_free: the caller saw it free, or is freeing it and leaves the key to this function),
-- grants it to the first live waiter, with that waiter's lease, and pushes the lock's value on that waiter's own
-- list, which wakes that waiter alone. The waiter holds the lock from here on, whether or not it still waits on its
-- list. Drops the expired places before it. Returns whether it granted the lock (its key then holds the new grant).
-- micros: the server's time if the caller has it, else nil; it is read only when someone waits.
local function hand_off(lock_key, fence_key, queue_key, micros, known_free)
  if not known_free and redis.call('EXISTS', lock_key) == 1 then
    return false
  end
  while true do
    local entry = redis.call('LPOP', queue_key)
    if not entry then
      return false
    end
    micros = micros or now_micros()
    local expires, lease, handed, claim = place_of(entry)
    if expires and expires > math.floor(micros / 1000) then
      redis.call('LPUSH', handed, grant(lock_key, fence_key, claim, lease, micros))
      redis.call('PEXPIRE', handed, lease)
      return true
    end
  end
end
