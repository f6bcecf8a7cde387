-- One admission of one API key (redislimit.Limiter.Acquire). All times are in microseconds.
-- KEYS: bucket (hash t=tokens, l=last refill), window (zset: admission time by lease),
--       slots (zset: lease by expiry)
-- ARGV: now ('' = Redis TIME), concurrency, rps, burst, window ceiling, window length,
--       lease ttl, lease id, key ttl (ms)
-- Returns: ok, in flight, admitted in the last second, reason, retry after, rate wait, window wait,
--          rate left, window left, now
-- now: see now.lua, prepended.
local conc, rps, burst = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local window, wlen, ttl, lease, keep = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9])
local slack = 1e-9

-- Slots: a lease whose node stopped renewing it is gone.
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local inflight = redis.call('ZCARD', KEYS[3])

-- The bucket, refilled to now.
local st = redis.call('HMGET', KEYS[1], 't', 'l')
local tokens, last = tonumber(st[1]), tonumber(st[2])
if tokens == nil or last == nil then
  tokens, last = burst, now
end
if now > last then
  tokens = math.min(burst, tokens + (now - last) / 1000000 * rps)
  last = now
end

-- The window: admissions older than its length no longer count.
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - wlen)

local function tokenWait()
  if tokens >= 1 - slack then return 0 end
  if rps <= 0 then return 3600000000 end
  return math.ceil((1 - tokens) / rps * 1000000)
end
local function windowWait()
  local n = redis.call('ZCARD', KEYS[2])
  if n < window then return 0 end
  local e = redis.call('ZRANGE', KEYS[2], n - window, n - window, 'WITHSCORES')
  return math.max(0, tonumber(e[2]) + wlen - now)
end
local function rateLeft()
  return math.max(0, math.min(math.floor(tokens + slack), math.ceil(rps)))
end
local function windowLeft()
  return math.max(0, window - redis.call('ZCARD', KEYS[2]))
end

-- Every limit is checked, not the first that binds: the wait must be enough for all of them.
local concWait, reason = 0, ''
if inflight >= conc then
  concWait, reason = 1000000, 'concurrency'
end
local rw, ww = tokenWait(), windowWait()
if rw > 0 or ww > 0 or concWait > 0 then
  if reason == '' then
    reason = 'sustained'
    if ww > rw then reason = 'burst' end
  end
  -- A refusal writes nothing: a flood of refused requests costs Redis no writes.
  return {0, inflight, 0, reason, math.max(concWait, rw, ww), rw, ww, rateLeft(), windowLeft(), now}
end

tokens = tokens - 1
redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens), 'l', string.format('%d', last))
redis.call('ZADD', KEYS[3], now + ttl, lease)
redis.call('ZADD', KEYS[2], now, lease)
-- Only the newest `window` admissions can ever bind.
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(window + 1))
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], keep) end
local recent = redis.call('ZCOUNT', KEYS[2], '(' .. string.format('%d', now - 1000000), '+inf')
return {1, inflight + 1, recent, '', 0, tokenWait(), windowWait(), rateLeft(), windowLeft(), now}
