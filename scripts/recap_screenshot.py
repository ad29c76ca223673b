"""The README's screenshot of the recap page: the demo series' second meeting at 1280x900, taken
with headless Chromium from a real `mithub api`.

    .venv/bin/python scripts/recap_screenshot.py                          # replays the demo series first
    .venv/bin/python scripts/recap_screenshot.py --database-url sqlite+aiosqlite:///data/demo/mithub.db

Needs the Debian packages chromium, chromium-driver and fonts-noto-cjk, and selenium (the
test extra). Writes docs/recap-meeting.png unless --out says otherwise.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from recap_browser import MithubApi, chromium, log_in, missing_browser  # noqa: E402

DEMO = (("ko_product_planning", "demo-ko-1", "2026-05-04T10:00:00+09:00"),
        ("ko_product_planning_2", "demo-ko-2", "2026-05-11T10:00:00+09:00"))


def replay_demo(folder: Path) -> str:
    from mithub.cli import main

    url = f"sqlite+aiosqlite:///{folder / 'mithub.db'}"
    for name, meeting_id, started in DEMO:
        code = main(["replay", str(ROOT / "examples" / "meetings" / f"{name}.jsonl"), "--meeting-id", meeting_id,
                     "--series", "demo-ko", "--started-at", started, "--database-url", url, "--no-progress"])
        if code != 0:
            raise SystemExit(f"replaying {name} failed ({code})")
    return url


def screenshot(database_url: str, out: Path, meeting: str, size: tuple[int, int], memory: Path) -> None:
    token = secrets.token_urlsafe(24)
    with MithubApi(database_url, token, memory_dir=memory) as api, chromium(*size) as driver:
        log_in(driver, api.base, token)
        driver.get(f"{api.base}/ui/meetings/{meeting}")
        out.parent.mkdir(parents=True, exist_ok=True)
        if not driver.save_screenshot(str(out)):
            raise SystemExit(f"could not write {out}")
    print(f"wrote {out}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="a store holding the demo series (default: replay it afresh)")
    parser.add_argument("--meeting", default="demo-ko-2")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "recap-meeting.png")
    parser.add_argument("--size", default="1280x900", help="viewport, WIDTHxHEIGHT")
    args = parser.parse_args()
    if (why := missing_browser()) is not None:
        print(f"cannot take the screenshot: {why}", file=sys.stderr)
        return 1
    width, height = (int(n) for n in args.size.lower().split("x"))
    with tempfile.TemporaryDirectory(prefix="mithub-screenshot-") as folder:
        url = args.database_url or replay_demo(Path(folder))
        screenshot(url, args.out, args.meeting, (width, height), Path(folder) / "memory")
    return 0


if __name__ == "__main__":
    sys.exit(main())
