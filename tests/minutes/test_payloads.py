"""What a Slack or Teams webhook receives: valid JSON in the shape each documents (Slack: `text`
+ `blocks` with mrkdwn sections, within Slack's block limits; Teams: a message with one Adaptive
Card attachment), headings in the meeting's language, every item cited, meeting text escaped
where the format reads markup."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from mithub.minutes.models import MinutesActionItem, MinutesDecision, PreviousDecision
from mithub.minutes.payloads import (
    MAX_CHAT_BYTES,
    SLACK_HEADER_CHARS,
    SLACK_MAX_BLOCKS,
    SLACK_SECTION_CHARS,
    payload_body,
)

from .test_delivery import START, sample_minutes

PAGE = "https://mithub.example.com/ui/meetings/m-1"


def busy_minutes():
    """Korean minutes with a changed decision, markup in the meeting's words and more items
    than a chat message shows."""
    minutes = sample_minutes()
    minutes.decisions.append(MinutesDecision(
        text="예산: 1억 1천만 원 <script>alert(1)</script> & <!channel>", value="1억 1천만 원", speaker="박서준",
        time=START + timedelta(minutes=7), seq=20,
        changed_since_last=PreviousDecision(value="1억 4천만 원", quote="1억 4천으로 하죠", speaker="김지현",
                                            meeting_id="m-0", date=(START - timedelta(days=7)).date(), seq=66)))
    minutes.action_items += [
        MinutesActionItem(task=f"항목 {i} " + "가" * 400, owner="수민", speaker="김지현",
                          time=START + timedelta(minutes=10), seq=40 + i) for i in range(60)]
    return minutes


def test_slack_is_text_and_blocks_within_slacks_limits() -> None:
    body = payload_body(busy_minutes(), "slack", page_url=PAGE)
    assert len(body) <= MAX_CHAT_BYTES
    message = json.loads(body)
    assert set(message) == {"text", "blocks"}
    assert message["text"].startswith("회의록: 제품 기획 &lt;주간&gt; (2026-05-11)")
    blocks = message["blocks"]
    assert len(blocks) <= SLACK_MAX_BLOCKS
    header = blocks[0]
    assert header["type"] == "header" and header["text"]["type"] == "plain_text"
    assert len(header["text"]["text"]) <= SLACK_HEADER_CHARS
    sections = [b for b in blocks if b["type"] == "section"]
    assert sections and all(s["text"]["type"] == "mrkdwn" for s in sections)
    assert all(1 <= len(s["text"]["text"]) <= SLACK_SECTION_CHARS for s in sections)
    text = "\n".join(s["text"]["text"] for s in sections)
    for heading in ("*결정 사항*", "*액션 아이템*"):
        assert heading in text
    assert "&lt;script&gt;" in text and "<script>" not in text and "&lt;!channel&gt;" in text
    assert "⚠ *지난 회의 대비 변경*" in text and "1억 4천만 원 → 1억 1천만 원" in text
    assert "*박서준*: 견적 받아 발주 품의 올리기 — 기한 2026-05-11 (김지현 10:09 #30)" in text
    listed = text.count("(김지현 10:10 #")  # the long action items
    assert 2 <= listed < 60 and f"외 {61 - listed - 1}건" in text  # 61 in all, the first one short
    assert f"<{PAGE}|전체 회의록>" in text


def test_teams_is_a_message_with_one_adaptive_card() -> None:
    body = payload_body(busy_minutes(), "teams", page_url=PAGE)
    assert len(body) <= MAX_CHAT_BYTES  # Teams refuses a message over about 28 KB
    message = json.loads(body)
    assert message["type"] == "message" and set(message) == {"type", "attachments"}
    [attachment] = message["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert attachment["contentUrl"] is None
    card = attachment["content"]
    assert card["type"] == "AdaptiveCard" and card["version"] == "1.4"
    assert card["$schema"] == "http://adaptivecards.io/schemas/adaptive-card.json"
    assert all(block["type"] == "TextBlock" and block["wrap"] is True for block in card["body"])
    texts = [block["text"] for block in card["body"]]
    assert texts[0] == "회의록: 제품 기획 <주간>" and "결정 사항" in texts and "액션 아이템" in texts
    assert any("- **박서준**: 견적 받아 발주 품의 올리기" in t for t in texts)
    assert card["actions"] == [{"type": "Action.OpenUrl", "title": "전체 회의록", "url": PAGE}]


def test_english_minutes_get_english_headings() -> None:
    minutes = sample_minutes().model_copy(update={"language": "en", "title": "Sprint review"})
    slack = json.loads(payload_body(minutes, "slack"))
    assert slack["blocks"][0]["text"]["text"] == "Minutes: Sprint review"
    assert any("*Action items*" in b["text"]["text"] for b in slack["blocks"] if b["type"] == "section")
    teams = json.loads(payload_body(minutes, "teams"))
    assert "Decisions" in [b["text"] for b in teams["attachments"][0]["content"]["body"]]


def test_json_is_the_minutes_as_they_are() -> None:
    minutes = busy_minutes()
    body = payload_body(minutes, "json")
    assert json.loads(body) == minutes.model_dump(mode="json")
    assert "제품 기획".encode() in body  # UTF-8, not \\u escapes


def test_an_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="json, slack, teams"):
        payload_body(sample_minutes(), "xml")
