-- wrk: refreshes with rotation. TOKENS_FILE holds one refresh token a line, each of its own session;
-- thread i of n takes the lines i, i+n, ...; each request spends one token and each answer's
-- refresh_token goes to the back of the thread's queue, so no token is presented twice (a reuse would
-- revoke its session). Needs at least as many tokens per thread as connections per thread.
local threads = {}
local counter = 0

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local queue, head, tail = {}, 1, 0

function init(args)
  local n = tonumber(os.getenv("THREADS") or "1")
  local i = 0
  for line in io.lines(os.getenv("TOKENS_FILE")) do
    if i % n == id then tail = tail + 1; queue[tail] = line end
    i = i + 1
  end
end

function request()
  local t = queue[head]
  if t == nil then t = "exhausted" else queue[head] = nil; head = head + 1 end
  return wrk.format("POST", nil, { ["Authorization"] = "Bearer " .. t }, "")
end

function response(status, headers, body)
  local t = body:match('"refresh_token"%s*:%s*"([^"]+)"')
  if t then tail = tail + 1; queue[tail] = t end
end
