"""Schemathesis hooks for check_openapi.py: each generated request gets the credential its
operation's `security` names, fresh for every request (a test case may log out, delete its user or
revoke its token, so none is shared): an anonymous user's access or refresh token, the
introspection client's HTTP Basic, the metrics token. The first alternative is used, so an
optional credential is sent. Settings come from the environment check_openapi.py sets.
"""
import base64, json, os, urllib.request

import schemathesis

BASE = os.environ["OPENAPI_CHECK_BASE"]
APP = os.environ["OPENAPI_CHECK_APP"]
CLIENT = os.environ["OPENAPI_CHECK_CLIENT"]          # "id:secret"
METRICS_TOKEN = os.environ["OPENAPI_CHECK_METRICS_TOKEN"]


def anonymous_session():
    request = urllib.request.Request(f"{BASE}/api/client/v2.0/app/{APP}/auth/providers/anon-user/login", data=b"{}",
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


@schemathesis.auth(refresh_interval=None)
class ServerCredentials:
    def get(self, case, context):
        security = context.operation.definition.raw.get("security") or [{}]
        names = security[0].keys()
        if "accessToken" in names:
            return "Bearer " + anonymous_session()["access_token"]
        if "refreshToken" in names:
            return "Bearer " + anonymous_session()["refresh_token"]
        if "clientBasic" in names:
            return "Basic " + base64.b64encode(CLIENT.encode()).decode()
        if "metricsToken" in names:
            return "Bearer " + METRICS_TOKEN
        return ""

    def set(self, case, data, context):
        if data:
            case.headers = dict(case.headers or {})
            case.headers["Authorization"] = data
