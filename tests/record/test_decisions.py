"""Decisions from the shipped settle model: a settling turn becomes a decision (subject, value
type, value) with a confidence; below the threshold it is a candidate, stored and shown only on
request; missing or corrupt weights are a clear error naming the rebuild command."""

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from mithub.context.models import Utterance
from mithub.embedders import load_embedder
from mithub.errors import ModelLoadError
from mithub.record.decisions import extract_decisions
from mithub.record.ledger import SeriesLedger, decisions_document
from mithub.record.meeting_record import MeetingRecord
from mithub.record.settle_model import REBUILD, SETTLE_FILE, WEIGHTS, settle_model

STARTED = datetime(2026, 5, 4, 10, 0, tzinfo=timezone(timedelta(hours=9)))
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "meetings"


@pytest.fixture(scope="module")
def embedder():
    return load_embedder("use-multilingual")


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
def test_sample_meeting_decisions(embedder, name: str) -> None:
    """The sample meetings' decisions are listed (within a line, as the benchmark scores), each
    with a value, a value type and a confidence above the shown threshold."""
    utterances, facts = _sample(name)
    decisions = extract_decisions(name, utterances, STARTED, embedder=embedder)
    shown = [d for d in decisions if not d.candidate]
    threshold = settle_model(live=False).threshold
    assert all(d.confidence >= threshold for d in shown)
    assert all(d.confidence < threshold for d in decisions if d.candidate)
    for fact in facts["decisions"]:
        assert any(abs(d.seq - fact["seq"]) <= 1 for d in shown), fact["text"]
    assert all(d.value and d.value_type and d.subject for d in shown)
    # a decision per proposal-settle-confirm window, not one per line of it: two listed within
    # two lines settle different values (a chair settling two things on two lines)
    ordered = sorted(decisions, key=lambda d: d.seq)
    assert all(b.seq - a.seq > 2 or (a.value_type != "choice" and a.value != b.value)
               for a, b in zip(ordered, ordered[1:], strict=False))


def test_chit_chat_settles_nothing(embedder) -> None:
    chat = ["네, 다들 들어오셨죠? 시작할게요.", "어제 비 많이 왔죠?", "네, 우산 챙기셨어요?", "저는 깜빡했어요.",
            "오늘 회의실 좀 덥네요.", "에어컨 켤까요?"]
    turns = [Utterance(id=i + 1, speaker_id=f"s{i % 3}", speaker_name=f"s{i % 3}", text=t,
                       absolute_timestamp=STARTED + timedelta(seconds=10 * i)) for i, t in enumerate(chat)]
    assert [d for d in extract_decisions("chat", turns, STARTED, embedder=embedder) if not d.candidate] == []


def test_candidates_are_stored_but_listed_only_on_request(embedder) -> None:
    utterances, _ = _sample("en_sprint_review")
    decisions = extract_decisions("m", utterances, STARTED, embedder=embedder)
    record = MeetingRecord(meeting_id="m", series_id="s", started_at=STARTED, decisions=decisions)
    from mithub.record.ledger import build_ledger

    ledger = build_ledger("s", [record], [])
    assert isinstance(ledger, SeriesLedger)
    plain = decisions_document(ledger)
    asked = decisions_document(ledger, candidates=True)
    assert all(not d["candidate"] for d in plain["decisions"]) and "candidates" not in plain
    assert len(plain["decisions"]) + len(asked["candidates"]["decisions"]) == len(decisions)
    assert all(d["candidate"] for d in asked["candidates"]["decisions"])


def test_missing_or_corrupt_weights_name_the_rebuild_command(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError) as missing:
        settle_model(live=False, folder=tmp_path)
    assert REBUILD in str(missing.value) and "missing" in str(missing.value)
    (tmp_path / SETTLE_FILE).write_text((WEIGHTS / SETTLE_FILE).read_text(encoding="utf-8")[:500], encoding="utf-8")
    with pytest.raises(ModelLoadError) as corrupt:
        settle_model(live=False, folder=tmp_path)
    assert REBUILD in str(corrupt.value) and "unreadable" in str(corrupt.value)


@pytest.mark.parametrize(("lines", "seq", "value"), [
    ([("한서연", "다음은 베타 참가자요. 지금 신청이 꽤 많이 들어왔어요."),
      ("최민호", "그럼 베타 참가자는 300명으로 받으면 어떨까요? 서버 여유도 그 정도예요."),
      ("김지현", "네, 그렇게 하죠."),
      ("한서연", "다음 안건으로 넘어갈게요.")], 3, "300명"),
    ([("Dana", "Next is the vendor for the notifications."),
      ("Jess", "Maybe we go with Relaymark, they're cheaper."),
      ("Sam", "Fine, go with that."),
      ("Dana", "Moving on.")], 3, "Relaymark"),
])
def test_an_agreement_that_adopts_a_proposal_is_a_decision(embedder, lines, seq: int, value: str) -> None:
    """A proposal ("…받으면 어떨까요?", "Maybe we go with…") adopted by the next speaker by a
    pro-form ("네, 그렇게 하죠", "Fine, go with that") is settled: the agreement is listed,
    shown, with the proposal's value, quoting both."""
    turns = [Utterance(id=i + 1, speaker_id=who, speaker_name=who, text=text,
                       absolute_timestamp=STARTED + timedelta(seconds=10 * i)) for i, (who, text) in enumerate(lines)]
    shown = [d for d in extract_decisions("m", turns, STARTED, embedder=embedder) if not d.candidate]
    adopted = [d for d in shown if d.seq == seq]
    assert len(adopted) == 1, shown
    decision = adopted[0]
    assert value in decision.value and lines[seq - 1][1] in decision.quote and lines[seq - 2][1][:20] in decision.quote
    assert lines[seq - 1][1] in decision.said and lines[seq - 2][1] in decision.said  # both, uncut
    assert decision.speaker == lines[seq - 1][0] and decision.confidence >= settle_model(live=False).threshold


def test_a_long_decision_keeps_its_words_uncut(embedder) -> None:
    """The quote is cut for display; `said` keeps the whole line for the change check."""
    said = ("좋습니다. 디자인팀 일정, 외주 계약 조건, 지난 분기 회고에서 나온 지원 인력 문제, 법무팀 검토 의견, "
            "마케팅 쪽 사전 홍보 일정과 고객지원 대응 인력 배치 계획, 운영팀의 서버 용량 검토 결과, 경쟁사 동향 자료까지 모두 "
            "반영해서 정리하면, 클로즈드 베타 참가자는 최종적으로 500명으로 확정하겠습니다.")
    lines = [("한서연", "베타 참가자 규모를 정해야 합니다."), ("최민호", said), ("김지현", "네, 알겠습니다.")]
    turns = [Utterance(id=i + 1, speaker_id=who, speaker_name=who, text=text,
                       absolute_timestamp=STARTED + timedelta(seconds=10 * i)) for i, (who, text) in enumerate(lines)]
    decision = next(d for d in extract_decisions("m", turns, STARTED, embedder=embedder) if d.seq == 2)
    assert len(said) > 160 and decision.quote.endswith("…") and "500명" not in decision.quote
    assert decision.said == said and decision.value == "500명"


def test_a_reply_that_only_answers_adopts_nothing(embedder) -> None:
    lines = [("최민호", "코드 프리즈를 7월 22일로 미루면 QA가 빠듯할까요?"), ("김지현", "네, 좀 빠듯해요."),
             ("한서연", "그건 그때 가서 봅시다.")]
    turns = [Utterance(id=i + 1, speaker_id=who, speaker_name=who, text=text,
                       absolute_timestamp=STARTED + timedelta(seconds=10 * i)) for i, (who, text) in enumerate(lines)]
    assert [d for d in extract_decisions("m", turns, STARTED, embedder=embedder) if not d.candidate] == []


def test_a_decision_keeps_the_terms_of_the_talk_that_led_to_it() -> None:
    """A terse decision ("한빛관광으로 갑시다") is about what the lines before it discussed: the
    decision keeps their key terms, from the line after the last decision users see (at most
    twelve lines back) to the line after it, so a later meeting's "버스는 …" can be matched to it."""
    from mithub.record.decisions import decisions_from
    from mithub.record.turn_features import analyse_turn

    lines = [("한서연", "워크숍 장소는 지난번에 정한 대로 갑니다.")]
    lines += [("김지현" if i % 2 else "한서연", f"{i + 1}번 안건은 다음 주에 다시 봅시다.") for i in range(4)]
    lines += [("최민호", "숙소는 한솔유스호스텔로 하겠습니다."), ("김지현", "인솔 교사 명단은 제가 돌릴게요.")]
    lines += [("김지현" if i % 2 else "한서연", f"{i + 5}번 안건은 다음 주에 다시 봅시다.") for i in range(8)]
    lines += [("한서연", "전세버스 견적은 두 군데 받았습니다. 동성고속이 대당 육만 원 쌉니다."),
              ("최민호", "안전 생각하면 한빛관광으로 갑시다."),
              ("김지현", "네, 기사님 배정은 제가 확인할게요.")]
    turns = [Utterance(id=i + 1, speaker_id=who, speaker_name=who, text=text,
                       absolute_timestamp=STARTED + timedelta(seconds=10 * i)) for i, (who, text) in enumerate(lines)]
    probs = [0.0] * len(turns)
    probs[5] = probs[-2] = 0.9  # the settle model's probabilities, given: what is read here is the talk
    names = sorted({who for who, _ in lines})
    lodging, bus = decisions_from("m", turns, probs, [analyse_turn(u.text, reference=STARTED.date(), names=names)
                                                      for u in turns], STARTED.date(), names, threshold=0.5, floor=0.1)
    assert (lodging.seq, bus.seq) == (6, len(lines) - 1)
    assert {"전세", "버스", "견적", "동성고속", "기사", "배정", "인솔", "교사"} <= set(bus.discussed)
    assert not {"숙소", "워크숍"} & set(bus.discussed) and bus.discussed == sorted(bus.discussed)
    assert "워크숍" in lodging.discussed  # twelve lines back at most, from the meeting's start here
