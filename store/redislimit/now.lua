-- Prepended to every script of this package (see script): the time the script decides by, in
-- microseconds. ARGV[1] is a caller's clock (tests on a virtual clock), or '' for Redis's own TIME,
-- so that nodes whose clocks disagree still share one window.
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[1])
end
