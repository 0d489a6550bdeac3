-- wrk: POST a JSON body (BODY, default "{}") with an optional bearer token (BEARER) to the URL given.
-- Used for anonymous logins (a new user and session each), and the soak's refreshes (one token).
wrk.method = "POST"
wrk.body = os.getenv("BODY") or "{}"
wrk.headers["Content-Type"] = "application/json"
local bearer = os.getenv("BEARER")
if bearer and bearer ~= "" then wrk.headers["Authorization"] = "Bearer " .. bearer end
