#!/usr/bin/env python3
"""The server's OpenAPI document against the server itself (docs/server.md, "The OpenAPI document").

Starts `tokentool serve` on 127.0.0.1 with a throwaway SQLite config (anonymous, API key,
email/password and custom-function sign-in, the custom function a stand-in served here; a
`clients` entry; a metrics token), reads GET /openapi.json and checks it with PyPI's
openapi-spec-validator, then runs PyPI's schemathesis from it against the live server, bounded
in examples per operation and in time: no answer may be a 5xx, and every answer must be one the
document lists, with its content type, headers and body schema. credentials.py gives each request
the credential its operation names.
Usage: check_openapi.py PATH/TO/tokentool [OUTPUT_DIR (default openapi-out): the document, the server's log, a JUnit report]
Bounds: OPENAPI_CHECK_EXAMPLES (per operation, default 25), OPENAPI_CHECK_SECONDS (default 150).
"""
import json, os, secrets, socket, subprocess, sys, tempfile, threading, time, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from openapi_spec_validator import validate

APP = "openapi-check"
CHECKS = "not_a_server_error,unsupported_method,allow_header_conformance,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance"


class Function(BaseHTTPRequestHandler):
    """The app's custom function: signs in any login body as one user; leaves confirm/reset calls pending."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        answer = {"status": "pending"} if body.get("type") in ("confirm", "reset") else {"id": "function-user", "name": "F"}
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_secret(work, name, value):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(value)
    os.chmod(path, 0o600)  # secrets are read owner-only


def serve_function():
    function = ThreadingHTTPServer(("127.0.0.1", 0), Function)
    threading.Thread(target=function.serve_forever, daemon=True).start()
    return function


def main():
    tokentool, out = sys.argv[1], (sys.argv[2:] or ["openapi-out"])[0]
    os.makedirs(out, exist_ok=True)
    function, work = serve_function(), tempfile.mkdtemp(prefix="openapi-serve-")
    client_secret, metrics_token = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    write_secret(work, "client.secret", client_secret)
    write_secret(work, "metrics.token", metrics_token)
    write_secret(work, "function.secret", secrets.token_urlsafe(24))
    port = free_port()
    config = {
        "public_url": f"http://127.0.0.1:{port}", "store": "s.sqlite", "metrics_token_file": "metrics.token",
        # Every request of credentials.py signs in anonymously first: those two limits must not
        # stop it, nor the mail and function limits the send and call routes' logic behind them.
        # Registration, reset and failed logins keep theirs, so that 429 answers are checked too.
        "limits": {"login_per_address": "100000/1s", "anonymous_per_address": "100000/1s", "send_per_address": "100000/1s",
                   "call_per_address": "100000/1s", "mail_per_address": "100000/1s"},
        # An OpenID Connect client too, so that the authorization, token, userinfo and logout routes
        # answer as a provider's rather than as a server without clients.
        "clients": {"probe": {"secret_file": "client.secret"},
                    "portal": {"app": APP, "secret_file": "client.secret", "redirect_uris": ["http://127.0.0.1/cb"],
                               "post_logout_redirect_uris": ["http://127.0.0.1/bye"]}},
        "apps": {APP: {"refresh_rotation": True, "providers": {
            "anon-user": {}, "api-key": {}, "local-userpass": {"auto_confirm": True},
            "custom-function": {"url": f"http://127.0.0.1:{function.server_port}/auth", "secret_file": "function.secret"}}}},
    }
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump(config, f)
    log = open(os.path.join(out, "serve.log"), "w")
    server = subprocess.Popen([tokentool, "serve", "--config", os.path.join(work, "config.json"), "--listen", f"127.0.0.1:{port}"],
                              stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        line = server.stdout.readline()
        assert line.startswith("listening on http://"), line
        base = line.split()[-1].rstrip("/")
        with urllib.request.urlopen(base + "/openapi.json", timeout=30) as answer:
            assert answer.headers["Content-Type"] == "application/json", answer.headers["Content-Type"]
            document = json.loads(answer.read())
        with open(os.path.join(out, "openapi.json"), "w") as f:
            json.dump(document, f, indent=1, sort_keys=True)
        validate(document)
        operations = sum(len(item) for item in document["paths"].values())
        print(f"ok openapi-spec-validator: OpenAPI {document['openapi']}, {operations} operations")

        env = dict(os.environ, SCHEMATHESIS_HOOKS="credentials", PYTHONPATH=os.path.dirname(os.path.abspath(__file__)),
                   OPENAPI_CHECK_BASE=base, OPENAPI_CHECK_APP=APP, OPENAPI_CHECK_CLIENT=f"probe:{client_secret}",
                   OPENAPI_CHECK_METRICS_TOKEN=metrics_token)
        examples = os.environ.get("OPENAPI_CHECK_EXAMPLES", "25")
        seconds = os.environ.get("OPENAPI_CHECK_SECONDS", "150")
        started = time.monotonic()
        run = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "run", base + "/openapi.json", "--url", base,
             "--checks", CHECKS, "--max-examples", examples, "--max-time", seconds,
             # One worker: CPython 3.11 keeps the ast module's recursion counter in interpreter-wide state
             # (CPython gh-106905), and Hypothesis parses lambda sources with it, so two worker threads can raise
             # "AST constructor recursion depth mismatch" inside schemathesis: an error of the tool, not the server.
             "--workers", "1",
             "--phases", "examples,coverage,fuzzing", "--request-timeout", "30", "--no-color",
             # Hypothesis' health checks judge the data generation's speed, not the server: off, so a slow
             # (sanitizer) build on a busy machine cannot fail the run on them.
             "--suppress-health-check", "all",
             "--generation-database", "none", "--report", "junit", "--report-dir", out],
            env=env, cwd=work)
        print(f"schemathesis: exit {run.returncode} after {time.monotonic() - started:.0f} s")
        if run.returncode != 0:
            sys.exit(run.returncode)
        print("ok schemathesis: no 5xx, every answer as documented")
    finally:
        server.terminate()
        server.wait(timeout=15)
        function.shutdown()
        log.close()


if __name__ == "__main__":
    main()
