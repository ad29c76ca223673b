"""A series from the command line: `mithub replay --series --started-at` for each meeting,
`mithub meetings list --series`, `mithub ask --show-context` citing the earlier meeting."""

from __future__ import annotations

import json

import pytest
from mithub.cli import main
from mithub_meetings import sample_meeting_file


@pytest.mark.slow
def test_two_replays_make_a_series_and_ask_shows_the_past_context(tmp_path, database_url, capsys):
    week_one = sample_meeting_file(tmp_path / "week1.jsonl", lines=70)
    week_two = sample_meeting_file(tmp_path / "week2.jsonl", lines=80, offset=71)
    for path, meeting_id, started in ((week_one, "w1", "2026-05-04T10:00+09:00"),
                                      (week_two, "w2", "2026-05-11T10:00+09:00")):
        assert main(["replay", str(path), "--meeting-id", meeting_id, "--series", "planning",
                     "--started-at", started, "--database-url", database_url, "--json",
                     "--no-progress"]) == 0
    capsys.readouterr()

    assert main(["meetings", "list", "--series", "planning", "--database-url", database_url, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(m["id"], m["series_id"], m["started_at"][:10]) for m in listed] == [
        ("w1", "planning", "2026-05-04"), ("w2", "planning", "2026-05-11")]
    assert main(["meetings", "list", "--series", "nobody", "--database-url", database_url]) == 0

    assert main(["ask", "--meeting", "w2", "--type", "IMMEDIATE_RESPONSE", "--database-url", database_url,
                 "--query", "지난 회의에서 Q3 클라우드 예산은 얼마로 확정했나요?", "--show-context"]) == 0
    out = capsys.readouterr().out
    assert "(5월 4일 회의)" in out and "2억 4천" in out
    context = out.split("## context", 1)[1]
    assert "w1#" in context and "w2#" in context
