"""Open a local HTML file in real headless Chromium (Debian's ``chromium`` and
``chromium-driver`` packages, driven by Selenium) and report what a person would see
go wrong: console errors, images that did not decode, network requests.

:func:`open_page` skips the calling test, with the reason, when Selenium, Chromium or
chromedriver is missing (``.ci/run`` installs them).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000")


def _binary(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class PageCheck:
    title: str
    console: list[dict]          # every browser log entry (level, message, source)
    images: list[dict]           # {alt, complete, naturalWidth, naturalHeight, src_prefix}
    requests: list[str]          # URLs the page asked for (Network.requestWillBeSent)
    text: str                    # document.body.innerText

    @property
    def errors(self) -> list[dict]:
        return [e for e in self.console if e.get("level") in ("SEVERE", "WARNING")]


def open_page(path: Path) -> PageCheck:
    """Load ``path`` (``file://``) in headless Chromium and collect :class:`PageCheck`."""
    import importlib

    from conftest import missing_tool

    webdriver = importlib.import_module("selenium.webdriver")  # in the test extra: a missing one fails
    from selenium.webdriver.chrome.service import Service

    chromium = _binary("chromium", "chromium-browser", "google-chrome")
    driver_bin = _binary("chromedriver")
    if chromium is None:
        missing_tool("no Chromium on PATH (Debian: apt-get install chromium chromium-driver; .ci/run does this)")
    if driver_bin is None:
        missing_tool("no chromedriver on PATH (Debian: apt-get install chromium-driver; .ci/run does this)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="evalkit-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_bin), options=options)
    try:
        driver.set_page_load_timeout(60)
        driver.get(Path(path).resolve().as_uri())
        images = driver.execute_script(
            "return Array.from(document.images).map(i => ({alt: i.alt, complete: i.complete, "
            "naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight, src_prefix: i.src.slice(0, 22)}))")
        text = driver.execute_script("return document.body.innerText")
        title = driver.title
        console = driver.get_log("browser")
        requests = []
        for entry in driver.get_log("performance"):
            msg = json.loads(entry["message"])["message"]
            if msg.get("method") == "Network.requestWillBeSent":
                requests.append(msg["params"]["request"]["url"])
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    return PageCheck(title, console, images, requests, text)
