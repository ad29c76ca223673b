"""`mithub minutes ID --format md|json`: the stored minutes as Markdown or JSON (raw text: the
JSON holds the words as said, escaping is for whoever renders them into HTML); a meeting
without stored minutes gets them composed; an unknown id is one clear error."""

from __future__ import annotations

import contextlib
import io
import json
from datetime import datetime, timedelta, timezone

import pytest

from mithub.cli import main
from mithub.context.models import Utterance
from mithub.minutes.models import Minutes
from mithub.minutes.render import to_markdown

from .conftest import read_store

pytestmark = pytest.mark.slow
KST = timezone(timedelta(hours=9))
RAW = '<script>alert("x")</script> & 예산은 3억 원으로 확정하겠습니다.'


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["minutes", *args])
    return code, out.getvalue(), err.getvalue()


def test_json_export_is_the_stored_minutes(demo_url) -> None:
    code, out, _ = run("demo-ko-2", "--format", "json", "--database-url", demo_url)
    assert code == 0
    exported = Minutes.model_validate(json.loads(out))
    stored = read_store(demo_url, lambda store: store.get_minutes("demo-ko-2"))
    assert exported == stored
    body = json.loads(out)
    assert body["started_at"] == "2026-05-11T10:00:00+09:00" and body["date"] == "2026-05-11"
    change = next(d for d in body["decisions"] if d["changed_since_last"] and "GPU" in d["text"])
    assert change["changed_since_last"]["meeting_id"] == "demo-ko-1"
    assert {"speaker", "time", "seq"} <= set(change)


def test_markdown_export_is_the_default(demo_url) -> None:
    code, out, _ = run("demo-ko-2", "--database-url", demo_url)
    assert code == 0
    assert out == to_markdown(read_store(demo_url, lambda store: store.get_minutes("demo-ko-2")))
    assert "## 결정 사항" in out and "지난 회의 대비 변경" in out


def test_an_unknown_meeting_is_one_clear_error(demo_url) -> None:
    code, out, err = run("no-such-meeting", "--database-url", demo_url)
    assert (code, out) == (1, "")
    assert err.strip() == ("mithub: error: meeting 'no-such-meeting' is not in the store; check the id "
                           "(`mithub meetings list`) and the --database-url")


def test_a_running_meeting_gets_minutes_composed_with_raw_text_in_json(demo_url) -> None:
    """A meeting still running has no stored minutes: they are composed from its lines, and
    not kept (it is not over). Its JSON carries the words as said, markup and all."""
    start = datetime(2026, 6, 1, 9, 0, tzinfo=KST)
    lines = [("kim", "김지현", "예산 얘기 하죠. 얼마로 할까요?"), ("park", "박서준", "3억이면 충분합니다."),
             ("kim", "김지현", RAW), ("park", "박서준", "네, 좋습니다.")]

    async def live(store):  # noqa: ANN001, ANN202
        await store.ensure_meeting("live-1", title="<b>live</b>", series_id="live", started_at=start, timezone="Asia/Seoul")
        await store.append_utterances("live-1", [
            Utterance(id=i + 1, speaker_id=sid, speaker_name=name, text=text, start_ms=i * 4000, end_ms=i * 4000 + 3000,
                      absolute_timestamp=start + timedelta(seconds=4 * i)) for i, (sid, name, text) in enumerate(lines)])

    read_store(demo_url, live)
    code, out, _ = run("live-1", "--format", "json", "--database-url", demo_url)
    assert code == 0
    body = json.loads(out)
    assert body["title"] == "<b>live</b>" and body["timezone"] == "Asia/Seoul" and body["language"] == "ko"
    (decision,) = [d for d in body["decisions"] if d["seq"] == 3]
    assert decision["quote"] == RAW and decision["speaker"] == "김지현"
    assert decision["time"] == "2026-06-01T09:00:08+09:00"
    assert [p["name"] for p in body["participants"]] == ["김지현", "박서준"]
    assert read_store(demo_url, lambda store: store.get_minutes("live-1")) is None, "a running meeting keeps none"
