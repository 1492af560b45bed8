-- Shared by the scripts that grant a lock or change its queue of waiters; LuaScript puts it before each of them.
-- A lock's waiters: KEYS[3] a list of their claims, first come first; KEYS[4] a hash from claim to
-- "<place expires, server ms> <lease ms> <the waiter's own list>". A place lasts until its waiter refreshes it
-- again or gives up; a waiter that died is dropped once its place expired. Both keys expire with the last place,
-- so a name nobody waits for leaves nothing behind. A waiter blocks (BLPOP) on its own list, where the lock is
-- pushed when it is handed to it; that list expires with the lease it was handed.

local function claim_of(value)
  return string.match(value, '^%d+ %d+ (.*)$')
end

local function now_micros()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000000 + tonumber(time[2])
end

-- Gives the lock to a claim, with the fencing token max(last token + 1, server time in microseconds): it grows
-- across holders and keeps growing when a server without persistence restarts with an empty counter (one key per
-- prefix). Returns the lock's value, "<token> <since ms> <claim>".
local function grant(lock_key, fence_key, claim, lease_ms, micros)
  local token = math.max(tonumber(redis.call('GET', fence_key) or 0) + 1, micros)
  local value = string.format('%.0f %.0f ', token, math.floor(micros / 1000)) .. claim
  redis.call('SET', lock_key, value, 'PX', lease_ms)
  redis.call('SET', fence_key, string.format('%.0f', token))
  return value
end

local function leave_queue(queue_key, waiters_key, claim)
  redis.call('LREM', queue_key, 1, claim)
  redis.call('HDEL', waiters_key, claim)
end

-- Takes the first waiter, just found by live_head, out of the queue.
local function pop_head(queue_key, waiters_key, head)
  redis.call('LPOP', queue_key)
  redis.call('HDEL', waiters_key, head)
end

-- Drops the waiters at the head of the queue whose place expired; returns the first live one's claim and entry.
local function live_head(queue_key, waiters_key, now_ms)
  while true do
    local head = redis.call('LINDEX', queue_key, 0)
    if not head then
      return nil
    end
    local entry = redis.call('HGET', waiters_key, head)
    if entry and tonumber(string.match(entry, '^(%d+) ')) > now_ms then
      return head, entry
    end
    redis.call('LPOP', queue_key)
    redis.call('HDEL', waiters_key, head)
  end
end

-- If the lock is free (known_free: the caller saw it free, or is freeing it and leaves the key to this function),
-- grants it to the first live waiter, with that waiter's lease, and pushes the lock's value on that waiter's own
-- list, which wakes that waiter alone. The waiter holds the lock from here on, whether or not it still waits on its
-- list. Drops the expired places before it. Returns whether it granted the lock (its key then holds the new grant).
-- micros: the server's time if the caller has it, else nil; it is read only when someone waits.
local function hand_off(lock_key, fence_key, queue_key, waiters_key, micros, known_free)
  if not known_free and redis.call('EXISTS', lock_key) == 1 then
    return false
  end
  while true do
    local head = redis.call('LPOP', queue_key)
    if not head then
      return false
    end
    micros = micros or now_micros()
    local entry = redis.call('HGET', waiters_key, head)
    redis.call('HDEL', waiters_key, head)
    if entry then
      local expires, lease, handed = string.match(entry, '^(%d+) (%d+) (.+)$')
      if tonumber(expires) > math.floor(micros / 1000) then
        redis.call('LPUSH', handed, grant(lock_key, fence_key, head, lease, micros))
        redis.call('PEXPIRE', handed, lease)
        return true
      end
    end
  end
end
