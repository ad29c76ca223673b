"""Change detection with the shipped models (live settle model + pair model) and the real
default embedder: a past decision changed explicitly or implicitly is found and named, a
restatement or a hypothetical is not announced, every change carries a confidence, and the
LLM's veto and the no-second-change rule keep their place."""

from datetime import date, datetime, timedelta, timezone

import numpy as np
import pytest

from mithub.context.models import Utterance
from mithub.embedders import load_embedder
from mithub.record.changes import ChangeDetector
from mithub.record.decisions import extract_decisions
from mithub.record.models import Decision
from mithub.record.pair_model import choice_phrases, line_cues, names_option, split_values, told_in_past
from mithub.record.values import extract_values

KST = timezone(timedelta(hours=9))
WEEK1 = datetime(2026, 5, 6, 14, 0, tzinfo=KST)
WEEK2 = datetime(2026, 5, 13, 14, 0, tzinfo=KST)

# Last week's ledger as the store gives it back: one decision per line, each firm.
KO_DECISIONS = [
    "네, 그럼 코드 프리즈는 7월 15일 수요일로 하겠습니다.",
    "네, 클로즈드 베타는 7월 22일에 시작합니다.",
    "네, 베타 참가자는 500명으로 가겠습니다.",
    "정식 출시는 8월 26일로 하겠습니다.",
    "네, 그럼 3분기 클라우드 총예산은 2억 4천만 원으로 확정하겠습니다.",
]
EN_DECISIONS = [
    "Okay. Let's go with Relaymark, final answer.",
    "Okay, two-year term.",
    "Okay, so go-live is July fifteenth.",
    "Okay. So the budget cap is eighty thousand, all in. Let's treat that as fixed.",
]


def ledger(texts: list[str], speaker: str) -> list[Decision]:
    return [Decision(id=f"week1#d{10 * (i + 1)}", meeting_id="week1", seq=10 * (i + 1), speaker=speaker,
                     time=WEEK1 + timedelta(minutes=5 * i), subject="", value="", quote=t, confidence=0.8)
            for i, t in enumerate(texts)]


@pytest.fixture(scope="module")
def embedder():
    return load_embedder("use-multilingual")


def detector(embedder, texts: list[str], speaker: str = "최민호") -> ChangeDetector:
    return ChangeDetector(embedder, ledger(texts, speaker), meeting_id="week2", started_at=WEEK2,
                          names=[speaker, "한서연", "Dana", "Jess"])


def line(text: str, who: str = "최민호", seq: int = 5) -> Utterance:
    return Utterance(id=seq, speaker_id=who, speaker_name=who, text=text, absolute_timestamp=WEEK2 + timedelta(minutes=seq))


def announced(checker: ChangeDetector, text: str, who: str = "최민호") -> int | None:
    change = checker.check(line(text, who))
    assert change is None or 0.0 <= change.confidence <= 1.0
    return change.past.seq if change is not None and not change.candidate else None


@pytest.mark.parametrize(
    ("text", "kind", "past_seq"),
    [
        ("그리고 베타도 그만큼 밀어야 돼서, 지난주에 22일로 잡았던 베타는 8월 5일에 열겠습니다.", "explicit", 20),
        ("코드 프리즈를 2주 뒤로 밀어서 7월 29일로 하겠습니다.", "implicit", 10),
    ],
)
def test_korean_changes_name_the_past_decision(embedder, text: str, kind: str, past_seq: int) -> None:
    change = detector(embedder, KO_DECISIONS).check(line(text))
    assert change is not None and not change.candidate
    assert change.kind == kind and change.past.seq == past_seq and change.decision_id == f"week1#d{past_seq}"
    assert change.meeting_id == "week2" and change.seq == 5 and change.confidence >= 0.5


def test_english_explicit_change(embedder) -> None:
    checker = detector(embedder, EN_DECISIONS, "Dana")
    assert announced(checker, "Okay. So last week we said a two-year term. We're going to three years instead.", "Dana") == 20


@pytest.mark.parametrize(
    "text",
    [
        "그리고 음, 분기 총액은 지난번 얘기한 대로 이억 사천 그대로 가고요.",  # restatement, other words
        "만약에 일정이 더 밀리면 베타를 8월 12일로 할 수도 있는데, 그건 그때 얘기고요.",  # hypothetical
        "네.",
        "베타 참가자 500명은 안 바꾸겠습니다.",  # a negated change keeps the decision
    ],
)
def test_korean_non_changes_are_not_announced(embedder, text: str) -> None:
    assert announced(detector(embedder, KO_DECISIONS), text) is None


@pytest.mark.parametrize(
    ("decisions", "who", "text", "past_seq"),
    [
        (KO_DECISIONS, "최민호", "지난주에 22일로 잡았던 클로즈드 베타는 취소할게요. 바로 정식 출시로 갑니다.", 20),
        (EN_DECISIONS, "Dana", "Scrap the Relaymark deal. We're not going ahead with a vendor this quarter.", 10),
    ],
)
def test_a_cancellation_is_a_change(embedder, decisions: list[str], who: str, text: str, past_seq: int) -> None:
    """Calling off what was decided gives the subject no value: a change of the decision the
    line points back at or names (neither line states a new value of its own)."""
    change = detector(embedder, decisions, who).check(line(text, who))
    assert change is not None and not change.candidate
    assert change.past.seq == past_seq and change.kind == "explicit"


INSURANCE = [*KO_DECISIONS, "마지막으로 보험이요. 여행자 보험은 다온손해보험으로 진행하겠습니다."]


@pytest.mark.parametrize(("text", "chosen", "turned_down"), [
    ("여행자 보험은 다온손해보험으로 진행하겠습니다.", {"다온손해보험"}, set()),
    ("지난주에 다온손해보험으로 하기로 했던 여행자 보험은 취소할게요.", set(), {"다온손해보험"}),
    ("지난주에 다온손해보험으로 하기로 했던 여행자 보험, 서류는 다 받으셨어요?", set(), set()),
    ("스캔메이트 대신 코드링크로 가죠.", {"코드링크"}, {"스캔메이트"}),
    ("스캔메이트 대신 다른 데 알아봤어요?", set(), set()),  # asked, not turned down
    ("작년엔 스캔메이트 대신 코드링크 썼었죠.", set(), set()),  # told in the past
    ("Then swap it. Veritemp instead of Aldane.", set(), {"aldane"}),
    ("Okay, so rather than the Mercy Street site, we use the library.", set(), {"mercystreet"}),
    ("Did you ever look at Veritemp instead of Aldane?", set(), set()),
    ("Last year we used Veritemp instead of Aldane.", set(), set()),
    ("We said Aldane last week, but we'll take Veritemp instead of Aldane.", set(), {"aldane"}),  # about now
    ("So what I'd propose is we slide a week. Instead of the ninth we start on the sixteenth.", set(), set()),
    ("스캔메이트가 납기를 못 맞춘다고 해서요. 스캔메이트 대신 코드링크로 가죠.", {"코드링크"}, {"스캔메이트"}),
    ("Aye. The motion carries. The pilot runs twelve months from installation instead of nine.", set(), {"nine"}),
])
def test_an_option_pointed_back_at_is_not_chosen_now(text: str, chosen: set[str], turned_down: set[str]) -> None:
    """"X로 하기로 했던" names what was chosen before: turned down when its sentence calls it
    off or changes it, else neither (a question or a follow-up about the decision)."""
    assert choice_phrases(text) == (chosen, turned_down)


@pytest.mark.parametrize(("text", "chosen"), [
    ("섭외는 모먼트캐스트랑 하는 걸로 해요.", {"모먼트캐스트"}),  # the party a choice is made with
    ("추가 학습은 병행하는 순서가 맞겠네요?", set()),  # a verb's subject is no option
    ("원심분리기는 셀트론 코리아로 오늘 발주 넣을게요.", {"셀트론코리아"}),  # nouns between goal and verb
    ("한빛관광으로만 가죠.", {"한빛관광"}),
    ("대성중기로는 안 가요.", set()),  # a negated verb chooses nothing
    ("시공사는 한결건설로 하겠습니다.", {"한결건설"}),
    ("승호 네가 대성이랑 목요일에 계약해.", set()),  # a time between the party and its verb: not read
    ("원심분리기는 셀트론 코리아로, 그리고 시약은 다음 주에.", set()),  # no verb closes the goal
])
def test_the_option_of_a_choice_is_read_from_its_argument(text: str, chosen: set[str]) -> None:
    """A Korean choice names its option as the goal (-로), the party it is made with
    (-랑/-과/-하고), closed by a verb (not as its subject); only nouns, adverbs and
    auxiliary particles may stand between ("셀트론 코리아로 오늘 발주 넣을게요", "한빛관광으로만")."""
    assert choice_phrases(text)[0] == chosen


@pytest.mark.parametrize(("decision", "option", "named"), [
    ("I'm inclined to go with staff. Nine months from installation.", "nine", True),
    ("Yeah. So the fire code is one eighty, but the barn feels right at one forty.", "eight", False),
    ("Okay, the venue is Harbor Hall, two hundred seats.", "harborhall", True),
])
def test_a_number_names_an_option_only_as_a_whole_word(decision: str, option: str, named: bool) -> None:
    """"Instead of nine" turns down the decision's "Nine months"; "instead of eight five" names
    nothing in "one eighty", though "eighty" begins with "eight"."""
    assert names_option(decision, option) is named


@pytest.mark.parametrize(("text", "past_seq"), [
    ("지난주에 다온손해보험으로 하기로 했던 여행자 보험은 취소할게요.", 60),
    ("지난주에 다온손해보험으로 하기로 했던 여행자 보험, 서류는 다 받으셨어요?", None),
    ("여행자 보험은 다온손해보험으로 하기로 했잖아요, 그거 가입 링크 공유드릴게요.", None),
    ("여행자 보험은 다온손해보험으로 하기로 했던 거 그대로 갑니다.", None),
])
def test_a_decided_option_called_off_is_a_change_and_a_follow_up_is_not(embedder, text: str, past_seq) -> None:
    assert announced(detector(embedder, INSURANCE), text) == past_seq


VENDORS = [*KO_DECISIONS, "네, 케이터링은 한솥푸드로 1인당 만 오천 원에 계약하겠습니다."]
EN_VENDORS = [*EN_DECISIONS, "Okay, the venue is Harbor Hall, two hundred seats, we sign Friday."]


@pytest.mark.parametrize(("decisions", "who", "text", "past_seq"), [
    (VENDORS, "최민호", "케이터링은 한솥푸드 대신 담은키친으로 바꿀게요.", 60),
    (VENDORS, "최민호", "케이터링 한솥푸드 대신 다른 데도 알아봤어요?", None),
    (VENDORS, "최민호", "한솥푸드가 그날 인원이 안 된다고 해서요. 케이터링은 한솥푸드 대신 담은키친으로 할게요.", 60),
    (EN_VENDORS, "Dana", "Let's book Pier Seven instead of Harbor Hall.", 50),
    (EN_VENDORS, "Dana", "Did anyone price Pier Seven instead of Harbor Hall?", None),
    (EN_VENDORS, "Dana", "Last year we used Pier Seven instead of Harbor Hall.", None),
    # "eight" begins "eighty" in the decision's line, but a number names an option only as a word
    ([*EN_DECISIONS, "Yeah. So the fire code is one eighty, but the barn feels right at one forty."],
     "Dana", "Copper Lantern emailed. They'd do the nineteenth for six thousand flat. Instead of eight five.", None),
])
def test_an_option_the_decision_named_turned_down_is_a_change(embedder, decisions, who, text, past_seq) -> None:
    """"A 대신 B", "B instead of A": the option turned down is one the decision's line names
    (not only the one it chose by "(으)로 + verb"), an explicit change; asked or told in the past,
    it turns nothing down."""
    change = detector(embedder, decisions, who).check(line(text, who))
    if past_seq is None:
        assert change is None or change.candidate
    else:
        assert change is not None and not change.candidate
        assert (change.past.seq, change.kind) == (past_seq, "explicit")


@pytest.mark.parametrize(("decisions", "proposal", "agreement", "past_seq"), [
    (KO_DECISIONS, ("한서연", "베타 참가자를 300명으로 줄이면 어떨까요?"), ("최민호", "좋습니다. 그렇게 하죠."), 30),
    (KO_DECISIONS, ("한서연", "베타 참가자는 500명 그대로 가면 어떨까요?"), ("최민호", "좋아요, 그렇게 하죠."), None),
    (KO_DECISIONS, ("한서연", "코드 프리즈를 7월 22일로 미루면 QA가 빠듯할까요?"), ("최민호", "네, 좀 빠듯해요."), None),
    (EN_DECISIONS, ("Jess", "What if we did a three-year term?"), ("Dana", "Fine, do it."), 20),
    (EN_DECISIONS, ("Jess", "Should we keep the two-year term?"), ("Dana", "Yes, let's keep it."), None),
    (EN_DECISIONS, ("Jess", "What if we did a three-year term?"), ("Dana", "Yeah, that would be tough."), None),
])
def test_an_agreement_that_adopts_a_proposal_settles_its_change(embedder, decisions, proposal, agreement,
                                                                 past_seq) -> None:
    """A proposal ("…줄이면 어떨까요?") changes nothing until another speaker adopts it ("그렇게
    하죠", "Fine, do it"): the change is announced at the agreement, quoting the proposal. A
    proposal that keeps the value, or a reply that only answers, announces nothing."""
    checker = detector(embedder, decisions, agreement[0])
    assert checker.check(line(proposal[1], proposal[0], seq=5)) is None or past_seq is None
    change = checker.check(line(agreement[1], agreement[0], seq=6))
    if past_seq is None:
        assert change is None or change.candidate
        return
    assert change is not None and not change.candidate and change.past.seq == past_seq
    assert change.seq == 6 and change.speaker == agreement[0]
    assert agreement[1] in change.quote and proposal[1] in change.quote  # what was adopted, and from whom
    assert f"{proposal[0]}:" in change.quote


LONG_DECISION = ("Okay, let me sum up where we landed after all that back and forth about support hours, pricing "
                 "tiers, the migration tooling and the security review. The budget cap is eighty thousand, all in.")


@pytest.mark.parametrize(("said", "announces"), [(LONG_DECISION, True), ("", False)])
def test_the_change_check_reads_a_long_decision_uncut(embedder, said: str, announces: bool) -> None:
    """A decision's quote is cut for display ("…the security review. The budget…"); the change
    check reads the words it rests on, uncut (`Decision.said`), so a value said after the cut
    still gets its change announced. A record stored before `said` was kept is read by its quote,
    which here has lost the value: nothing to compare, no notice."""
    from mithub.record.decisions import condense

    decision = Decision(id="week1#d10", meeting_id="week1", seq=10, speaker="Dana", time=WEEK1, subject="",
                        value="", quote=condense(LONG_DECISION), said=said, confidence=0.8)
    assert "eighty" not in decision.quote
    checker = ChangeDetector(embedder, [decision], meeting_id="week2", started_at=WEEK2, names=["Dana", "Jess"])
    change = checker.check(line("Finance came back, so the budget cap is sixty thousand now.", "Jess"))
    shown = change is not None and not change.candidate and change.past.seq == 10
    assert shown is announces
    assert change is None or change.past.quote == decision.quote  # the notice quotes what users saw


def test_llm_pair_check_can_veto(embedder) -> None:
    seen = []

    def veto(decision, utterance, previous):  # noqa: ANN001, ANN202
        seen.append(decision.seq)
        return False

    checker = ChangeDetector(embedder, ledger(KO_DECISIONS, "최민호"), meeting_id="week2", started_at=WEEK2, pair_check=veto)
    assert checker.check(line("지난주에 22일로 잡았던 베타는 8월 5일에 열겠습니다.")) is None
    assert seen == [20]


def test_ledger_grows_and_retires_live(embedder) -> None:
    checker = ChangeDetector(embedder, [], meeting_id="week2", started_at=WEEK2)
    moved = line("지난주에 22일로 잡았던 베타는 8월 5일에 열겠습니다.")
    assert checker.check(moved) is None  # nothing to contradict yet
    checker.add_decisions(ledger(KO_DECISIONS, "최민호"))
    change = checker.check(moved)
    assert change is not None and change.past.seq == 20
    checker.mark_changed(change.decision_id)
    again = checker.check(moved)
    assert again is None or again.decision_id != change.decision_id


def _sample(folder, name: str, started: datetime) -> list[Utterance]:  # noqa: ANN001
    import json

    rows = [json.loads(x) for x in (folder / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]
    return [Utterance(id=i + 1, speaker_id=r["speaker_id"], speaker_name=r["speaker_name"], text=r["text"],
                      absolute_timestamp=started + timedelta(milliseconds=r["start_ms"])) for i, r in enumerate(rows)]


def test_demo_series_changes_match_its_facts(embedder) -> None:
    """The two sample Korean meetings of one series, through the whole LLM-free path: meeting 1's
    decisions from the settle model, then meeting 2 line by line as the live watch runs it. The
    planted explicit and implicit changes are announced naming the right meeting-1 decision, and
    nothing else is."""
    import json
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "examples" / "meetings"
    facts = json.loads((folder / "ko_product_planning_2.facts.json").read_text(encoding="utf-8"))
    first = datetime.fromisoformat(facts["previous_meeting"]["started_at"])
    second = datetime.fromisoformat(facts["started_at"])
    m1, m2 = _sample(folder, "ko_product_planning", first), _sample(folder, "ko_product_planning_2", second)
    checker = ChangeDetector(embedder, extract_decisions("demo-1", m1, first, embedder=embedder), meeting_id="demo-2",
                             started_at=second, names=sorted({u.speaker_name for u in m1 + m2}))
    found = {}
    for i, u in enumerate(m2):
        change = checker.check(u, m2[max(0, i - 3):i])
        if change is not None and not change.candidate:
            checker.mark_changed(change.decision_id)
            found[u.id] = (change.kind, change.past.seq)
    expected = {c["seq"]: (c["kind"], c["meeting1_seq"]) for c in facts["changes"]}
    assert found == expected


def test_the_live_check_judges_a_line_as_the_meeting_so_far_does(embedder) -> None:
    """The check reads only a window of the last lines (`changes.HISTORY`): each line's live settle
    probability must still be the one the live model gives it over the whole meeting so far, as
    training computed it. A feature reading further back than the window, or a running figure of
    the whole meeting the window would drop, fails here."""
    import json
    from pathlib import Path

    from mithub.record.settle_model import settle_model
    from mithub.record.turn_features import turns_of

    folder = Path(__file__).resolve().parents[2] / "examples" / "meetings"
    facts = json.loads((folder / "ko_product_planning_2.facts.json").read_text(encoding="utf-8"))
    started = datetime.fromisoformat(facts["started_at"])
    lines = _sample(folder, "ko_product_planning_2", started)[:40]
    checker = ChangeDetector(embedder, ledger(KO_DECISIONS, "최민호"), meeting_id="demo-2", started_at=started,
                             names=sorted({u.speaker_name for u in lines}))
    live = [checker._remember(u)[0] for u in lines]
    vectors = np.asarray(embedder.embed_documents([u.text for u in lines]), dtype=np.float32)
    whole = settle_model(live=True).probabilities(turns_of(lines), reference=started.date(), vectors=vectors)
    assert live == pytest.approx(list(whole), abs=1e-4)


@pytest.mark.parametrize(("text", "new", "old"), [
    ("지난주에 칠월 이십이 일로 못 박았던 출간일, 팔월 오 일로 미룰게요.", ["팔월 오 일로"], ["칠월 이십이 일로"]),
    ("예. 그래서 지난주에 네 대로 했던 거, 그걸로는 택도 없어요. 여섯 대로 갑시다.", ["여섯 대"], ["네 대"]),
    ("23일로 미룬 일정대로 가겠습니다.", ["23일"], []),  # a bare -ㄴ adnominal with no earlier time: the new date
    ("Right. We agreed Monday the seventh last week, and that now becomes Monday the twenty-first.",
     ["Monday the twenty-first"], ["Monday the seventh"]),
    ("So the one forty we said last week, it's one sixty now.", ["one sixty"], ["one forty"]),
    ("The cap is fifty K for the campaign.", ["fifty K"], []),
    ("그러면 지난주에 정한 예비비 8퍼센트는 없던 걸로 하겠습니다.", [], ["8퍼센트"]),  # the value called off
])
def test_the_value_pointed_back_at_is_the_old_one(text, new, old):
    """By grammar, not by verb: a Korean value whose predicate is a past adnominal, an English value
    whose clause speaks of last week, is the earlier decision's value (a date said in words too)."""
    values = extract_values(text, reference=date(2026, 6, 11))
    got_new, got_old = split_values(text, values)
    assert ([v.text for v in got_new], [v.text for v in got_old]) == (new, old)


@pytest.mark.parametrize(("text", "told"), [
    ("Last year we used Pier Seven instead of Harbor Hall.", True),
    ("They gave us the nineteenth and knocked fifteen hundred off the site fee.", True),
    ("So we said Sentrova last week, but we'll be using LogHaven instead.", False),
    ("We had June twelfth locked last week, and we're now on June nineteenth.", False),
    ("작년엔 스캔메이트 대신 코드링크 썼었죠.", True),
    ("이번에 들어오는 건 이천 십구 년식으로 받기로 했습니다.", True),
    ("지난주에 22일로 잡았던 베타는 8월 5일에 열겠습니다.", False),
    ("지난주에 다온손해보험으로 하기로 했던 여행자 보험은 취소할게요.", False),
])
def test_a_sentence_told_in_the_past_is_read_by_its_main_verb(text: str, told: bool) -> None:
    """A sentence that tells what happened settles nothing now; the past of a clause that points
    back ("22일로 잡았던") or a second verb about now ("we're now on") does not make it one."""
    assert told_in_past(text) is told


def test_a_line_is_told_in_the_past_only_when_every_sentence_is() -> None:
    assert line_cues("연식 조건 계약서에 넣었어요. 이천 십구 년식으로 받기로 했습니다.")["line_told_past"] == 1.0
    assert line_cues("크레인은 한라하고 계약서 어제 도장 찍었습니다. 29일에 교체 설치 들어옵니다.")["line_told_past"] == 0.0
