"""Decision extraction on lines in the style of real meetings, and on the sample meetings."""

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from mithub.context.models import Utterance
from mithub.record.decisions import extract_decisions

STARTED = datetime(2026, 5, 4, 10, 0, tzinfo=timezone(timedelta(hours=9)))
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "meetings"


def lines(*texts: tuple[str, str]) -> list[Utterance]:
    return [
        Utterance(id=i + 1, speaker_id=who, speaker_name=who, text=text,
                  absolute_timestamp=STARTED + timedelta(seconds=10 * i))
        for i, (who, text) in enumerate(texts)
    ]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("네, 그럼 3분기 클라우드 총예산은 2억 4천만 원으로 확정하겠습니다.", "2억 4천만 원"),
        ("그럼 밤 10시에 끄고 아침 7시에 켜는 걸로 하죠.", "10시"),
        ("네, 베타 참가자는 500명으로 가겠습니다.", "500명"),
        ("Okay. Let's go with Relaymark, final answer.", "Relaymark"),
        ("Okay, two-year term.", "two-year"),
        ("Makes sense. Sixty percent social, forty search.", "Sixty percent"),
        ("Okay, so go-live is July fifteenth.", "July fifteenth"),
        ("그럼 연간 할인은 20% 말고 15%로 하죠.", "15%"),  # the turned-down option is not the value
    ],
)
def test_settling_lines_are_decisions(text: str, value: str) -> None:
    decisions = extract_decisions("m1", lines(("chair", text)), STARTED)
    assert len(decisions) == 1
    assert value in decisions[0].value
    assert decisions[0].seq == 1 and decisions[0].speaker == "chair"
    assert decisions[0].quote.startswith(text[:20])


@pytest.mark.parametrize(
    "text",
    [
        "8월부터는 내부에서 소화하기로 했어요.",  # someone else's plan, reported
        "80%에서 한 번 울리게 하면 어때요?",  # a proposal asked as a question
        "끄는 시간을 8시로 당기면 한 달에 한 300 정도 더 빠지긴 해요.",  # a hypothetical
        "iOS만 먼저 내는 건 이제 생각 안 하고 있어요.",  # a rejected option
        "그건 숫자 나오면 다음 주에 정하죠.",  # deferred
        "So they offered one, two, or three years.",  # options on the table
        "If the shoot slips, we could push to the fifteenth.",
        "네, 다음 주 금요일까지 올리겠습니다.",  # an action item, not a decision
    ],
)
def test_non_decisions_are_not_listed(text: str) -> None:
    assert extract_decisions("m1", lines(("someone", text)), STARTED) == []


def _sample(name: str) -> tuple[list[Utterance], dict]:
    rows = [json.loads(line) for line in (EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]
    facts = json.loads((EXAMPLES / f"{name}.facts.json").read_text(encoding="utf-8"))
    utterances = [
        Utterance(id=i + 1, speaker_id=r["speaker_id"], speaker_name=r["speaker_name"], text=r["text"],
                  absolute_timestamp=STARTED + timedelta(milliseconds=r["start_ms"]))
        for i, r in enumerate(rows)
    ]
    return utterances, facts


@pytest.mark.parametrize("name", ["ko_product_planning", "en_sprint_review"])
def test_sample_meeting_decisions(name: str) -> None:
    utterances, facts = _sample(name)
    decisions = extract_decisions(name, utterances, STARTED)
    found = {d.seq for d in decisions}
    for fact in facts["decisions"]:
        assert fact["seq"] in found, fact["text"]
    # The contractor's plan of the Korean demo is not a decision of this meeting.
    assert not any("소화하기로 했어요" in d.quote for d in decisions)
    assert len(decisions) <= 2 * len(facts["decisions"])
