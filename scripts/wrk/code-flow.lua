-- wrk: whole authorization-code flows of a browser already signed in. A connection sends GET
-- /oauth/authorize with the OP session cookie and PKCE S256 (the server answers 302 with a code),
-- and whenever its thread holds a code, POST /oauth/token with it, its verifier and HTTP Basic
-- (200 with tokens). Environment: COOKIE (name=value), CLIENT_ID, CLIENT_BASIC (base64 of id:secret),
-- REDIRECT_URI. One verifier for every flow (RFC 7636 appendix B's pair): the server still checks it
-- against each code's challenge. done() prints "Flows/sec:", complete flows (token answers 200) per
-- second, which scripts/wrk/summarize.py reports instead of requests per second.
local cookie = os.getenv("COOKIE") or ""
local client = os.getenv("CLIENT_ID") or ""
local basic = os.getenv("CLIENT_BASIC") or ""
local redirect = os.getenv("REDIRECT_URI") or ""
local verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
local challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

local threads = {}
function setup(thread) table.insert(threads, thread) end

local function encode(s)
  return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end
local function decode(s)
  return (s:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

local codes, n = {}, 0
flows = 0

function request()
  local code = table.remove(codes)
  if code then
    local body = "grant_type=authorization_code&code=" .. encode(code) .. "&redirect_uri=" .. encode(redirect)
      .. "&code_verifier=" .. verifier
    return wrk.format("POST", "/oauth/token",
      { ["Authorization"] = "Basic " .. basic, ["Content-Type"] = "application/x-www-form-urlencoded" }, body)
  end
  n = n + 1
  local path = "/oauth/authorize?response_type=code&client_id=" .. encode(client) .. "&redirect_uri=" .. encode(redirect)
    .. "&scope=openid%20profile%20email&state=s" .. n .. "&nonce=n" .. n
    .. "&code_challenge=" .. challenge .. "&code_challenge_method=S256"
  return wrk.format("GET", path, { ["Cookie"] = cookie })
end

function response(status, headers, body)
  if status == 302 then
    local location = headers["Location"] or headers["location"] or ""
    local code = location:match("[?&]code=([^&]+)")
    if code then table.insert(codes, decode(code)) end
  elseif status == 200 and body:find('"id_token"', 1, true) then
    flows = flows + 1
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do total = total + (t:get("flows") or 0) end
  io.write(string.format("Flows: %d\nFlows/sec: %.2f\n", total, total / (summary.duration / 1e6)))
end
