-- Counts one subject's attempts in a sliding window (redislimit.Attempts): a sorted set of attempt
-- times. Checks, and with add records, one attempt.
-- KEYS: the subject's set. ARGV: now ('' = Redis TIME), window (us), max, add (1 or 0), member.
-- Returns {allowed (1/0), wait (us) until the next attempt is allowed, now (us)}.
-- now: see now.lua, prepended.
local window = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if ARGV[4] == '1' then
  redis.call('ZADD', KEYS[1], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
end
local n = redis.call('ZCARD', KEYS[1])
if n < max then
  return {1, 0, now}
end
-- The max-th newest attempt leaves the window first among those that bind.
local at = redis.call('ZRANGE', KEYS[1], n - max, n - max, 'WITHSCORES')
return {0, tonumber(at[2]) + window - now, now}
