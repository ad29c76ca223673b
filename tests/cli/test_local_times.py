"""A meeting replayed into SQLite reads on its own clock in every CLI view (issue 19 item 1):
the meeting's day, its times and its due dates, for an early-morning meeting in Seoul and a
late-evening one in New York, whose UTC dates are the day before and the day after."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mithub.cli import main

DEMO = Path(__file__).resolve().parents[2] / "examples" / "meetings" / "ko_product_planning.jsonl"


def _run(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0, capsys.readouterr().err
    return capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize(("started", "offset", "hours"), [
    ("2026-05-04T08:30:00+09:00", "+09:00", {"08", "09"}),
    ("2026-05-04T22:30:00-05:00", "-05:00", {"22", "23"}),
    ("2026-05-04T10:00:00+09:00", "+09:00", {"10"}),  # the demo meeting: 10:xx everywhere
])
def test_a_replayed_meeting_reads_on_its_own_clock(tmp_path, capsys, started, offset, hours):
    url = f"sqlite+aiosqlite:///{tmp_path / 'local.db'}"
    _run(capsys, "replay", str(DEMO), "--meeting-id", "m", "--series", "s", "--started-at", started,
         "--database-url", url, "--no-progress", "--json")

    listed = _run(capsys, "meetings", "list", "--database-url", url)
    assert f"2026-05-04 {started[11:16]} {offset}" in listed
    shown = _run(capsys, "meetings", "show", "m", "--database-url", url)
    assert re.search(rf"created \d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d {re.escape(offset)}", shown)

    decisions = _run(capsys, "decisions", "--series", "s", "--database-url", url)
    stamps = re.findall(r"^- \[\w+\] (\d{4}-\d\d-\d\d) (\d\d):\d\d ", decisions, re.MULTILINE)
    assert stamps and {day for day, _ in stamps} == {"2026-05-04"} and {h for _, h in stamps} <= hours

    actions = json.loads(_run(capsys, "actions", "--series", "s", "--database-url", url, "--json"))["actions"]
    assert actions and all(a["time"].startswith("2026-05-04T") and a["time"].endswith(offset) for a in actions)
    due = {a["seq"]: a["due_date"] for a in actions}
    # "다음 주 금요일까지" (#37/#38) and "이번 주 금요일까지" (#68/#69) said on Monday 4 May
    assert {due.get(37), due.get(38)} - {None} == {"2026-05-15"}
    assert {due.get(68), due.get(69)} - {None} == {"2026-05-08"}
    text = _run(capsys, "actions", "--series", "s", "--database-url", url)
    assert all(h in hours for h in re.findall(r", \S+ (\d\d):\d\d\]$", text, re.MULTILINE))
