-- One attempt to take a lock (SET NX PX), and on success a fencing token from the counter of the key prefix.
-- KEYS[1] the lock key, KEYS[2] the fencing counter; ARGV[1] lease in ms, ARGV[2] the claim of this attempt
-- ("<grant id> <host> <owner id>", chosen by the client). The value is "<token> <since ms> <claim>".
-- The token is max(last token + 1, server time in microseconds): it grows across holders and keeps growing
-- when a server without persistence restarts with an empty counter. The counter is one key per prefix.
-- A key of the same owner (host and owner id) is taken over: an owner never asks for a lock it holds, so it is
-- the grant of an earlier attempt whose answer was lost, and asking again must not lock the owner out.
-- Returns {1, value} when granted, {0, pttl of the holder} when held.
local current = redis.call('GET', KEYS[1])
if current then
  if string.match(current, '^%d+ %d+ %S+ (.*)$') ~= string.match(ARGV[2], '^%S+ (.*)$') then
    return {0, redis.call('PTTL', KEYS[1])}
  end
  redis.call('DEL', KEYS[1])
end
local time = redis.call('TIME')
local micros = tonumber(time[1]) * 1000000 + tonumber(time[2])
local token = math.max(tonumber(redis.call('GET', KEYS[2]) or 0) + 1, micros)
local value = string.format('%.0f %.0f ', token, math.floor(micros / 1000)) .. ARGV[2]
redis.call('SET', KEYS[1], value, 'NX', 'PX', ARGV[1])
redis.call('SET', KEYS[2], string.format('%.0f', token))
return {1, value}
