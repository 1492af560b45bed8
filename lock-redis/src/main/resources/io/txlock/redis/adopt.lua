-- Quorum mode: replaces this server's provisional value by the grant's final value (same expiry) and raises
-- the fencing counter to the final token, so that every later grant on a majority gets a higher token.
-- KEYS[1] the lock key, KEYS[2] the fencing counter; ARGV[1] the grant's claim, ARGV[2] final value, ARGV[3] final token.
-- Returns 1 if this server holds the final value now (also when asked twice), 0 if it no longer holds the grant.
local current = redis.call('GET', KEYS[1])
if current == ARGV[2] then
  return 1
end
if not current or string.match(current, '^%d+ %d+ (.*)$') ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
if tonumber(redis.call('GET', KEYS[2]) or 0) < tonumber(ARGV[3]) then
  redis.call('SET', KEYS[2], ARGV[3])
end
return 1
