"""Headless Chromium for the page tests (pages_test.py, oidc_test.py): Debian's chromium and
chromium-driver through PyPI selenium, a phone-sized window."""
import os
import time

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
