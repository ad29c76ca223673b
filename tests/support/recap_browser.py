"""A real browser on the recap page: `mithub api` as a user starts it (its own process, port
chosen by the system) and headless Chromium driven by Selenium. Used by
tests/api/test_ui_browser.py and scripts/recap_screenshot.py.

    with MithubApi(database_url, token) as api, chromium(1280, 900) as driver:
        log_in(driver, api.base, token)
        driver.get(api.base + "/ui/meetings/demo-ko-2")

Chromium comes from Debian's `chromium`, `chromium-driver` and `fonts-noto-cjk` packages
(Korean needs a CJK font); `missing_browser()` says what is absent.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
APT_PACKAGES = "chromium chromium-driver fonts-noto-cjk"


def browser_paths() -> tuple[str | None, str | None]:
    browser = next((path for name in BROWSERS if (path := shutil.which(name))), None)
    return browser, shutil.which("chromedriver")


def missing_browser() -> str | None:
    """Why the browser test cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    browser, driver = browser_paths()
    if browser is None or driver is None:
        absent = " and ".join(n for n, p in (("chromium", browser), ("chromedriver", driver)) if p is None)
        return f"{absent} not found; install the Debian packages: apt-get install -y {APT_PACKAGES}"
    return None


class MithubApi:
    """`python -m mithub.cli api --port 0` over a store, until the block ends."""

    def __init__(self, database_url: str, token: str, *, memory_dir: Path | None = None,
                 ready_seconds: float = 180.0) -> None:
        self.database_url, self.token = database_url, token
        self.memory_dir, self.ready_seconds = memory_dir, ready_seconds
        self.base = ""
        self._process: subprocess.Popen[str] | None = None
        self._lines: list[str] = []

    def __enter__(self) -> MithubApi:
        env = {**os.environ, "API_TOKEN": self.token, "PYTHONUNBUFFERED": "1"}
        if self.memory_dir is not None:
            env["MEMORY_CACHE_DIR"] = str(self.memory_dir)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "mithub.cli", "api", "--host", "127.0.0.1", "--port", "0",
             "--database-url", self.database_url],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=lambda: self._lines.extend(self._process.stdout), daemon=True).start()
        deadline = time.monotonic() + self.ready_seconds
        while not self.base:
            found = next((m for line in list(self._lines) if (m := re.search(r"ready on (http://\S+)", line))), None)
            if found:
                self.base = found.group(1)
            elif self._process.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise RuntimeError("`mithub api` did not become ready:\n" + "".join(self._lines[-40:]))
            else:
                time.sleep(0.1)
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()


@contextmanager
def chromium(width: int, height: int) -> Iterator:
    """Headless Chromium with a `width` x `height` viewport (the system's chromedriver)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = browser_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--hide-scrollbars", "--lang=ko-KR", f"--window-size={width},{height}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        resize(driver, width, height)
        yield driver
    finally:
        driver.quit()


def resize(driver, width: int, height: int) -> None:  # noqa: ANN001 - selenium WebDriver
    """The page's viewport exactly `width` x `height` CSS pixels, a phone's included."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def log_in(driver, base: str, token: str) -> None:  # noqa: ANN001
    """Open the series list as a user does: sent to the login, the token typed once."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(base + "/ui/")
    WebDriverWait(driver, 20).until(ready.presence_of_element_located((By.ID, "token")))
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    WebDriverWait(driver, 20).until(ready.presence_of_element_located((By.CSS_SELECTOR, "tr.meeting-row")))


def platform_fonts(driver, selector: str) -> list[str]:  # noqa: ANN001
    """The fonts Chromium drew the element's text with (DevTools' CSS.getPlatformFontsForNode)."""
    driver.execute_cdp_cmd("DOM.enable", {})
    driver.execute_cdp_cmd("CSS.enable", {})
    root = driver.execute_cdp_cmd("DOM.getDocument", {})["root"]["nodeId"]
    node = driver.execute_cdp_cmd("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    fonts = driver.execute_cdp_cmd("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    return [f["familyName"] for f in fonts]


def page_overflows(driver) -> list[str]:  # noqa: ANN001
    """What sticks out past the viewport's right edge (a sideways scroll, or text cut off, on a
    phone): the elements' tags and classes; empty when everything fits."""
    return driver.execute_script("""
        const width = document.documentElement.clientWidth;
        return Array.from(document.querySelectorAll('body *'))
            .filter(e => e.getBoundingClientRect().right > width + 1)
            .map(e => e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined
                                                 ? '.' + e.className : ''));""")
