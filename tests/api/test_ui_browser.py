"""The recap page in a real browser: headless Chromium (Selenium) against `mithub api` over the
demo series. A user signs in, opens the series list, the second meeting and the ledger, at
desktop and at phone width; the screenshots are kept in the test's tmp folder.

Skipped only when Chromium, chromedriver or selenium is absent (the reason names the
packages to install)."""

from __future__ import annotations

from pathlib import Path

import pytest
from recap_browser import MithubApi, chromium, log_in, missing_browser, page_overflows, platform_fonts, resize

from .conftest import TOKEN

WHY_NOT = missing_browser()
pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")]
DESKTOP, PHONE = (1280, 900), (390, 844)


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", path
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")


def shoot(driver, folder: Path, name: str, size: tuple[int, int]) -> Path:  # noqa: ANN001
    path = folder / f"{name}.png"
    assert driver.save_screenshot(str(path))
    assert png_size(path) == size, name
    return path


def wait_for(driver, css: str):  # noqa: ANN001, ANN201
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, 20).until(ready.presence_of_element_located((By.CSS_SELECTOR, css)))


def gpu_change(driver):  # noqa: ANN001, ANN201 - the GPU servers' decision, changed from 4 to 3
    from selenium.webdriver.common.by import By

    changed = driver.find_elements(By.CSS_SELECTOR, "#decisions li.decision.changed")
    return next(li for li in changed if "4대" in li.find_element(By.CSS_SELECTOR, ".old-value").text)


def test_a_browser_signs_in_and_reads_the_series_a_meeting_and_the_ledger(demo_series_url, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    shots = tmp_path / "screenshots"
    shots.mkdir()
    with MithubApi(demo_series_url, TOKEN, memory_dir=tmp_path / "memory") as api, chromium(*DESKTOP) as driver:
        log_in(driver, api.base, TOKEN)
        rows = driver.find_elements(By.CSS_SELECTOR, "tr.meeting-row")
        assert [r.get_attribute("id") for r in rows] == ["meeting-demo-ko-2", "meeting-demo-ko-1"]
        shoot(driver, shots, "series-desktop", DESKTOP)

        rows[0].find_element(By.CSS_SELECTOR, "a").click()
        wait_for(driver, "#transcript p#t-112")
        change = gpu_change(driver)
        assert "3대" in change.find_element(By.CSS_SELECTOR, ".new-value").text
        assert "GPU" in change.text and change.is_displayed()
        action = next(li for li in driver.find_elements(By.CSS_SELECTOR, "#actions li.action") if "3대 기준" in li.text)
        assert action.find_element(By.CSS_SELECTOR, ".owner").text == "박서준"
        assert driver.find_elements(By.CSS_SELECTOR, "svg.talk g.talk-bar") and \
            driver.find_element(By.CSS_SELECTOR, "svg.strip").size["width"] > 400
        fonts = platform_fonts(driver, "#decisions li.decision p")
        assert any("CJK" in f or "KR" in f for f in fonts), f"Korean drawn without a CJK font: {fonts}"
        shoot(driver, shots, "meeting-desktop", DESKTOP)

        # The change cites the first meeting's line: the link lands on it.
        change.find_element(By.CSS_SELECTOR, ".change a.cite").click()
        WebDriverWait(driver, 20).until(lambda d: d.current_url.endswith("/ui/meetings/demo-ko-1#t-66"))
        line = wait_for(driver, "#t-66")
        assert "4대" in line.text
        assert driver.execute_script("const r = arguments[0].getBoundingClientRect();"
                                     "return r.top >= 0 && r.bottom <= window.innerHeight;", line)

        driver.get(api.base + "/ui/series/demo-ko/ledger")
        Select(wait_for(driver, "select[name=owner]")).select_by_value("박서준")
        driver.find_element(By.CSS_SELECTOR, "form.filter button").click()
        WebDriverWait(driver, 20).until(lambda d: "owner=" in d.current_url)
        owners = {e.text for e in driver.find_elements(By.CSS_SELECTOR, "#actions li.action .owner")}
        assert owners == {"박서준"}
        assert "3대" in gpu_change(driver).find_element(By.CSS_SELECTOR, ".new-value").text
        shoot(driver, shots, "ledger-desktop", DESKTOP)

        resize(driver, *PHONE)
        for name, path in (("series", "/ui/"), ("meeting", "/ui/meetings/demo-ko-2"),
                           ("ledger", "/ui/series/demo-ko/ledger")):
            driver.get(api.base + path)
            wait_for(driver, "main h1")
            sticking_out = page_overflows(driver)
            assert not sticking_out, f"{path} does not fit a phone's width: {sticking_out[:5]}"
            shoot(driver, shots, f"{name}-phone", PHONE)
        assert "4대" in gpu_change(driver).text  # the ledger, at phone width
    assert len(list(shots.glob("*.png"))) == 6
