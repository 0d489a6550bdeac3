-- wrk: refreshes without rotation, each of its own session, as real clients do. TOKENS_FILE holds one
-- refresh token a line, each of its own session; thread i of n takes the lines i, i+n, ... and sends
-- them in turn, so with at least as many tokens as connections no two requests in flight share a
-- session (one token from every connection would queue every request on one session's row lock).
local counter = 0

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end

local tokens, next = {}, 1

function init(args)
  local n = tonumber(os.getenv("THREADS") or "1")
  local i = 0
  for line in io.lines(os.getenv("TOKENS_FILE")) do
    if i % n == id then tokens[#tokens + 1] = line end
    i = i + 1
  end
end

function request()
  local t = tokens[next] or "exhausted"
  next = next % #tokens + 1
  return wrk.format("POST", nil, { ["Authorization"] = "Bearer " .. t }, "")
end
