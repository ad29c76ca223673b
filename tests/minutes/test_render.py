"""The minutes as Markdown (headings in the meeting's language, every item with its citation)
and the short chat version: within the size limit at any limit, the counts first, the
changes before the other items, and the page link when there is one."""

from __future__ import annotations

import pytest

from mithub.cli import main
from mithub.minutes.models import Minutes
from mithub.minutes.render import to_chat, to_markdown

from .conftest import EXAMPLES, read_store

pytestmark = pytest.mark.slow
PAGE = "https://mithub.example.com/ui/meetings/demo-ko-2"


@pytest.fixture(scope="module")
def korean(demo_url) -> Minutes:
    return read_store(demo_url, lambda store: store.get_minutes("demo-ko-2"))


@pytest.fixture(scope="module")
def english(tmp_path_factory) -> Minutes:
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('en') / 'mithub.db'}"
    assert main(["replay", str(EXAMPLES / "en_sprint_review.jsonl"), "--meeting-id", "demo-en", "--title",
                 "Sprint review", "--started-at", "2026-05-05T16:00:00-04:00", "--database-url", url,
                 "--no-progress", "--json"]) == 0
    return read_store(url, lambda store: store.get_minutes("demo-en"))


def test_korean_markdown_has_korean_headings_and_cited_items(korean: Minutes) -> None:
    text = to_markdown(korean)
    assert text.startswith("# 회의록: ko_product_planning_2.jsonl\n")
    for heading in ("## 주제", "## 결정 사항", "## 액션 아이템", "## 미결 사항"):
        assert f"\n{heading}\n" in text
    assert "- **일시**: 2026-05-11 10:00–10:13" in text
    assert "⚠ **지난 회의 대비 변경** (4대, 1억 4천만 원 → 3대, 1억 1천만 원: 5월 4일 회의, 김지현 #66)" in text
    for action in korean.action_items:
        assert f"**{action.owner}**: {action.task}" in text
        assert f"({action.speaker} {action.time:%H:%M} #{action.seq})" in text
    assert "- [ ] **박서준**: 서준 님이 3대 기준으로 최종 견적 받아서 발주 품의 올려 주세요 — 기한 2026-05-15" in text


def test_an_english_meeting_gets_english_minutes(english: Minutes) -> None:
    assert english.language == "en" and english.timezone == "-04:00"
    text = to_markdown(english)
    assert text.startswith("# Minutes: Sprint review\n")
    for heading in ("## Topics", "## Decisions", "## Action items", "## Open questions"):
        assert f"\n{heading}\n" in text
    assert "회의" not in text and "- **Date**: 2026-05-05 16:" in text
    assert english.action_items and english.decisions
    assert all(a.time.utcoffset().total_seconds() == -4 * 3600 for a in english.action_items)


@pytest.mark.parametrize("limit", [300, 600, 2000, 15000])
def test_the_chat_version_fits_the_limit_and_leads_with_the_changes(korean: Minutes, limit: int) -> None:
    text = to_chat(korean, limit_chars=limit, page_url=PAGE)
    assert len(text) <= limit
    lines = text.splitlines()
    assert lines[0] == "📝 회의록: ko_product_planning_2.jsonl (2026-05-11)"
    assert lines[1] == f"결정 {len(korean.decisions)}건 · 변경 2건 · 액션 아이템 {len(korean.action_items)}건"
    assert lines[-1] == f"전체 회의록: {PAGE}"
    if limit >= 600:
        assert lines[2] == "지난 회의 대비 변경:" and "4대, 1억 4천만 원 → 3대, 1억 1천만 원" in text
        assert "(김지현 10:07 #62)" in text
    if limit >= 15000:  # everything fits: no "more" line
        assert all(a.task[:30] in text for a in korean.action_items) and "외 " not in text


def test_the_chat_version_has_no_link_without_a_public_url(korean: Minutes) -> None:
    text = to_chat(korean, limit_chars=2000)
    assert "http" not in text and "전체 회의록" not in text
    assert "액션 아이템:" in text


def test_english_chat_version(english: Minutes) -> None:
    text = to_chat(english, limit_chars=1000, page_url="https://x.example/ui/meetings/demo-en")
    assert text.startswith("📝 Minutes: Sprint review (2026-05-05)\n")
    assert f"{len(english.decisions)} decisions · 0 changes · {len(english.action_items)} action items" in text
    one = english.model_copy(update={"decisions": english.decisions[:1], "action_items": english.action_items[:1]})
    assert to_chat(one, limit_chars=1000).splitlines()[1] == "1 decision · 0 changes · 1 action item"
    assert text.endswith("Full minutes: https://x.example/ui/meetings/demo-en")
