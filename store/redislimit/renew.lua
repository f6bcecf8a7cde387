-- Pushes back the expiry of leases this node still holds (redislimit.Limiter.Renew). A lease
-- already expired and removed is not brought back (XX).
-- KEYS: slots. ARGV: now ('' = Redis TIME), lease ttl (us), leases...
-- now: see now.lua, prepended.
local exp = now + tonumber(ARGV[2])
for i = 3, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', exp, ARGV[i])
end
local keep = redis.call('PTTL', KEYS[1])
if keep >= 0 and keep < tonumber(ARGV[2]) / 1000 + 60000 then
  redis.call('PEXPIRE', KEYS[1], math.floor(tonumber(ARGV[2]) / 1000) + 60000)
end
return 0
