"""Change detection against a past meeting's decisions, with the real default embedder."""

from datetime import datetime, timedelta, timezone

import pytest

from mithub.context.models import Utterance
from mithub.embedders import load_embedder
from mithub.record.changes import ChangeDetector
from mithub.record.decisions import extract_decisions

KST = timezone(timedelta(hours=9))
WEEK1 = datetime(2026, 5, 6, 14, 0, tzinfo=KST)
WEEK2 = datetime(2026, 5, 13, 14, 0, tzinfo=KST)

KO_MEETING1 = [
    ("최민호", "네, 그럼 코드 프리즈는 7월 15일 수요일로 하겠습니다."),
    ("한서연", "네."),
    ("최민호", "네, 클로즈드 베타는 7월 22일에 시작합니다."),
    ("최민호", "네, 베타 참가자는 500명으로 가겠습니다."),
    ("최민호", "정식 출시는 8월 26일로 하겠습니다."),
    ("최민호", "네, 그럼 3분기 클라우드 총예산은 2억 4천만 원으로 확정하겠습니다."),
]
EN_MEETING1 = [
    ("Dana", "Okay. Let's go with Relaymark, final answer."),
    ("Dana", "Okay, two-year term."),
    ("Dana", "Okay, so go-live is July fifteenth."),
    ("Jess", "Okay. So the budget cap is eighty thousand, all in. Let's treat that as fixed."),
]


def meeting(rows, started: datetime) -> list[Utterance]:
    return [Utterance(id=i + 1, speaker_id=who, speaker_name=who, text=text,
                      absolute_timestamp=started + timedelta(seconds=20 * i))
            for i, (who, text) in enumerate(rows)]


@pytest.fixture(scope="module")
def embedder():
    return load_embedder("use-multilingual")


def detector(embedder, rows) -> ChangeDetector:
    past = meeting(rows, WEEK1)
    decisions = extract_decisions("week1", past, WEEK1)
    names = sorted({u.speaker_name for u in past})
    return ChangeDetector(embedder, decisions, meeting_id="week2", started_at=WEEK2, names=names)


def line(text: str, who: str = "최민호", seq: int = 5) -> Utterance:
    return Utterance(id=seq, speaker_id=who, speaker_name=who, text=text,
                     absolute_timestamp=WEEK2 + timedelta(minutes=seq))


@pytest.mark.parametrize(
    ("text", "kind", "past_seq"),
    [
        ("그리고 베타도 그만큼 밀어야 돼서, 지난주에 22일로 잡았던 베타는 8월 5일에 열겠습니다.", "explicit", 3),
        ("코드 프리즈를 2주 뒤로 밀어서 7월 29일로 하겠습니다.", "implicit", 1),
        ("네, 법무 검토도 받았어요. 그리고 베타 모집 인원은 300명으로 공고 나갑니다.", "implicit", 4),
        ("클로즈드 베타는 7월 22일 말고 8월 5일에 열죠.", "explicit", 3),  # the old value turned down
    ],
)
def test_korean_changes_name_the_past_decision(embedder, text: str, kind: str, past_seq: int) -> None:
    change = detector(embedder, KO_MEETING1).check(line(text))
    assert change is not None
    assert change.kind == kind
    assert change.past.seq == past_seq and change.past.meeting_id == "week1"
    assert change.decision_id == f"week1#d{past_seq}"
    assert change.meeting_id == "week2" and change.seq == 5


@pytest.mark.parametrize(
    ("text", "kind", "past_seq"),
    [
        ("Okay. So last week we said a two-year term. We're going to three years instead.", "explicit", 2),
        ("So we'd said July fifteenth, and that's not happening. Go-live moves to August third.", "explicit", 3),
        ("Finance came back. So the cap is fifty K for the campaign. All in.", "implicit", 4),
    ],
)
def test_english_changes_name_the_past_decision(embedder, text: str, kind: str, past_seq: int) -> None:
    change = detector(embedder, EN_MEETING1).check(line(text, "Dana"))
    assert change is not None
    assert change.kind == kind
    assert change.past.seq == past_seq


@pytest.mark.parametrize(
    "text",
    [
        "그리고 음, 분기 총액은 지난번 얘기한 대로 이억 사천 그대로 가고요.",  # restatement, other words
        "네, 그게 고민인데요. 정식 출시는 26일 그대로 갑니다.",  # restatement by day only
        "네, 출시 당일 스토어 공개는 오전 10시로 하죠.",  # same subject, other attribute
        "만약에 일정이 더 밀리면 베타를 8월 12일로 할 수도 있는데, 그건 그때 얘기고요.",  # hypothetical
        "베타 참가자 300명은 지난주에 안 하기로 했잖아요.",  # a rejected option
    ],
)
def test_korean_non_changes_are_not_flagged(embedder, text: str) -> None:
    assert detector(embedder, KO_MEETING1).check(line(text)) is None


@pytest.mark.xfail(strict=True, reason="known limit: another budget of the same kind shares the key "
                   "term 예산 and clears the cross-validated threshold; needs the LLM pair check")
def test_a_new_budget_is_not_a_change_to_another(embedder) -> None:
    text = "네, 그럼 출시 이벤트 예산은 3천만 원으로 하겠습니다."
    assert detector(embedder, KO_MEETING1).check(line(text)) is None


@pytest.mark.parametrize(
    "text",
    [
        "Good news, Relay's still the pick, and legal's fine with the MSA.",
        "Yeah, we're still live on the fifteenth.",
        "Okay, so if Relay falls apart, Pinnacle's the fallback. But we're not there.",
        "If the shoot slips, we could push to the twenty-second, but honestly I don't want to.",
    ],
)
def test_english_non_changes_are_not_flagged(embedder, text: str) -> None:
    assert detector(embedder, EN_MEETING1).check(line(text, "Dana")) is None


def test_llm_pair_check_can_veto(embedder) -> None:
    seen = []

    def veto(decision, utterance, previous):
        seen.append(decision.seq)
        return False

    past = meeting(KO_MEETING1, WEEK1)
    checker = ChangeDetector(embedder, extract_decisions("week1", past, WEEK1), meeting_id="week2",
                             started_at=WEEK2, pair_check=veto)
    assert checker.check(line("지난주에 22일로 잡았던 베타는 8월 5일에 열겠습니다.")) is None
    assert seen == [3]


def test_changed_decisions_are_not_checked_again(embedder) -> None:
    past = meeting(KO_MEETING1, WEEK1)
    decisions = [d.model_copy(update={"status": "changed"}) if d.seq == 3 else d
                 for d in extract_decisions("week1", past, WEEK1)]
    checker = ChangeDetector(embedder, decisions, meeting_id="week2", started_at=WEEK2)
    change = checker.check(line("지난주에 22일로 잡았던 베타는 8월 5일에 열겠습니다."))
    assert change is None or change.past.seq != 3


def test_demo_series_changes_match_its_facts(embedder) -> None:
    """The two sample Korean meetings of one series: the planted explicit and implicit
    changes are found naming the right meeting-1 decision; nothing else is flagged."""
    import json
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "examples" / "meetings"
    facts = json.loads((folder / "ko_product_planning_2.facts.json").read_text(encoding="utf-8"))

    def load(name: str, started: datetime) -> list[Utterance]:
        rows = [json.loads(x) for x in (folder / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]
        return [Utterance(id=i + 1, speaker_id=r["speaker_id"], speaker_name=r["speaker_name"], text=r["text"],
                          absolute_timestamp=started + timedelta(milliseconds=r["start_ms"]))
                for i, r in enumerate(rows)]

    first = datetime.fromisoformat(facts["previous_meeting"]["started_at"])
    second = datetime.fromisoformat(facts["started_at"])
    m1, m2 = load("ko_product_planning", first), load("ko_product_planning_2", second)
    checker = ChangeDetector(embedder, extract_decisions("demo-1", m1, first), meeting_id="demo-2",
                             started_at=second, names=sorted({u.speaker_name for u in m1 + m2}))
    found = {}
    for i, u in enumerate(m2):
        change = checker.check(u, m2[max(0, i - 3):i])
        if change is not None:
            found[u.id] = (change.kind, change.past.seq)
    expected = {c["seq"]: (c["kind"], c["meeting1_seq"]) for c in facts["changes"]}
    assert found == expected


OFFICE_MEETING1 = [
    ("박지훈", "네, 이사 날짜는 9월 19일 토요일로 확정하겠습니다."),
    ("박지훈", "좌석은 한 층에 120석으로 가죠."),
    ("박지훈", "요금제는 월 9,900원으로 하고, 연간 결제는 20% 할인하는 걸로 하죠."),
    ("박지훈", "마이그레이션은 김수아 님이 맡는 걸로 하겠습니다."),
    ("박지훈", "교육은 주 2회, 회당 90분으로 하겠습니다."),
    ("박지훈", "서버는 4대로 시작하겠습니다."),
    ("김수아", "네, 알겠습니다."),
    ("정하늘", "네."),
]


@pytest.mark.parametrize(
    ("text", "past_seq"),
    [
        ("이사는 9월 26일에 하는 걸로 하겠습니다.", 1),
        ("요금제는 만 천 원으로 올려서 나갑니다.", 3),
        ("지난번에 20%로 정했던 연간 할인은 15%로 줄이겠습니다.", 3),
        ("마이그레이션은 하늘 님이 맡아 주세요.", 4),
        ("교육은 회당 두 시간으로 늘리겠습니다.", 5),
        ("서버는 여섯 대로 늘려서 가겠습니다.", 6),
        ("좌석은 층당 백이십 석 그대로고요.", None),
        ("교육 장소는 3층 대회의실로 하죠.", None),
        ("만약 업체가 안 되면 9월 26일로 밀 수도 있어요.", None),
        ("이사 업체 견적은 천이백만 원 나왔어요.", None),
    ],
)
def test_another_domain(embedder, text: str, past_seq: int | None) -> None:
    """Lines of a domain the benchmark does not have (an office move): values in other
    forms (만 천 원, 두 시간, 여섯 대, a given name) still compare."""
    change = detector(embedder, OFFICE_MEETING1).check(line(text, "박지훈"))
    assert (change.past.seq if change else None) == past_seq


def test_plain_statement_conflicts_but_an_estimate_does_not(embedder) -> None:
    checker = detector(embedder, KO_MEETING1)
    change = checker.check(line("네, 그래서 베타 참가자는 300명입니다."))
    assert change is not None and change.past.seq == 4
    assert checker.check(line("베타 참가자는 한 300명 정도 될 것 같아요.")) is None


def test_ledger_grows_and_retires_live(embedder) -> None:
    past = extract_decisions("week1", meeting(KO_MEETING1, WEEK1), WEEK1)
    checker = ChangeDetector(embedder, [], meeting_id="week2", started_at=WEEK2)
    moved = line("지난주에 22일로 잡았던 베타는 8월 5일에 열겠습니다.")
    assert checker.check(moved) is None  # nothing to contradict yet
    checker.add_decisions(past)
    change = checker.check(moved)
    assert change is not None and change.past.seq == 3
    checker.mark_changed(change.decision_id)
    again = checker.check(moved)
    assert again is None or again.decision_id != change.decision_id


PRICING_MEETING1 = [
    ("Ana Ruiz", "Okay, so the move date is September nineteenth."),
    ("Ana Ruiz", "Let's lock the price at forty-nine dollars a month."),
    ("Ana Ruiz", "We'll hire two designers this quarter."),
    ("Ana Ruiz", "Final answer: Northwind for the movers."),
    ("Ana Ruiz", "Okay, Sam Lee owns the budget."),
    ("Sam Lee", "Sure."),
    ("Ana Ruiz", "Okay, the trial is fourteen days."),
]


@pytest.mark.parametrize(
    ("text", "past_seq"),
    [
        ("The move date is September twenty-sixth now.", 1),
        ("We said forty-nine last week, but the price goes to fifty-nine.", 2),
        ("We're hiring three designers, not two.", 3),
        ("We'll do a twenty-one day trial instead.", 7),
        ("Still forty-nine a month, nothing changes there.", None),
        ("If we go annual, it'd be forty-four a month.", None),
        ("Northwind's confirmed for the movers, truck booked for the nineteenth.", None),
        ("The office party is on September twenty-sixth.", None),
        ("Sam, you still own the budget, right?", None),
        ("Our churn was four percent last month.", None),
    ],
)
def test_another_domain_in_english(embedder, text: str, past_seq: int | None) -> None:
    week1 = datetime(2026, 8, 3, 10, 0, tzinfo=timezone(timedelta(hours=-7)))
    past = meeting(PRICING_MEETING1, week1)
    checker = ChangeDetector(embedder, extract_decisions("week1", past, week1), meeting_id="week2",
                             started_at=week1 + timedelta(days=7), names=["Ana Ruiz", "Sam Lee"])
    change = checker.check(line(text, "Ana Ruiz"))
    assert (change.past.seq if change else None) == past_seq
