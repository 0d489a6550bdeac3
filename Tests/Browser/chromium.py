"""Headless Chromium for the page tests (pages_test.py, oidc_test.py, passkey_test.py): Debian's
chromium and chromium-driver through PyPI selenium, a phone-sized window; and what the tests share
around it: a free loopback port, a relying party's redirect URI."""
import os
import queue
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def open_browser():
    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=390,844"):
        options.add_argument(arg)
    options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def shot(browser, out, name, expect, seconds=15):
    """Waits up to `seconds` for `expect` in the page's text, keeps a screenshot as OUT/NAME.png,
    and fails when the text never came. A form POST navigates: until the answer has loaded, the
    body may be the old page's, or gone mid-read (a stale element, or "node does not belong to the
    document", which Chromium reports as a plain WebDriverException)."""
    deadline, text = time.monotonic() + seconds, ""
    while time.monotonic() < deadline:
        try:
            text = browser.find_element(By.TAG_NAME, "body").text
        except WebDriverException:
            text = ""
        if expect in text:
            break
        time.sleep(0.1)
    browser.save_screenshot(os.path.join(out, name + ".png"))
    assert expect in text, f"{name}: {expect!r} not in {text!r}"
    print(f"ok {name}")


def free_port():
    """A loopback port free now, for a server whose `public_url` must name it before it starts."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _RedirectURI(BaseHTTPRequestHandler):
    """The relying party's redirect URI: keeps each query it is sent, answers a small page."""

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/cb":
            self.server.arrivals.put(dict(urllib.parse.parse_qsl(url.query)))
        body = b"<!doctype html><title>client</title><p id=arrived>back at the client</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def redirect_listener():
    """A relying party's redirect URI served from a thread: (the server, `http://127.0.0.1:PORT/cb`,
    a queue of the queries it is sent, each a dict). `server.shutdown()` stops it."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RedirectURI)
    server.arrivals = queue.Queue()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/cb", server.arrivals
