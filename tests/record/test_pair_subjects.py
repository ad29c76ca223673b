"""The pair model reads the subject of each value (the key terms of the sentence that states
it): a line giving a new value to a decision's subject is a change even when the rest of the
line talks about other things, and a value of the same type on another subject is not."""

import sys
from pathlib import Path

import numpy as np
import pytest

from mithub.embedders import load_embedder
from mithub.record.pair_model import value_subjects
from mithub.record.values import extract_values

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_changes import KO_DECISIONS, detector, line  # noqa: E402

LEDGER = [*KO_DECISIONS, "그럼 단기 인력 35명, 9월 7일부터 투입", "푸드트럭은 15대로 모집하자."]


@pytest.fixture(scope="module")
def embedder():
    return load_embedder("use-multilingual")


def test_a_value_takes_the_subject_of_its_own_sentence() -> None:
    text = "법무 검토도 받았어요. 그리고 단기 인력은 마흔다섯 명으로 뽑으세요."
    values = extract_values(text)
    subjects = value_subjects(text, values)
    assert len(subjects) == len(values) == 1
    assert {"단기", "인력"} <= subjects[0] and not subjects[0] & {"법무", "검토", "마흔", "다섯"}


def test_english_subject_leaves_out_the_value_words() -> None:
    text = "Finance came back. So the cap is fifty K for the campaign."
    (subject,) = value_subjects(text, extract_values(text))
    assert {"cap", "campaign"} <= subject and "finance" not in subject and "fifty" not in subject


def test_a_new_count_for_a_decided_subject_is_announced(embedder) -> None:
    change = detector(embedder, LEDGER).check(line("푸드트럭은 열 대만 받아요. 신청 마감되면 추첨으로 뽑고."))
    assert change is not None and not change.candidate and change.past.seq == 70 and change.kind == "implicit"


def test_the_same_count_restated_is_not_a_change(embedder) -> None:
    change = detector(embedder, LEDGER).check(line("푸드트럭은 열다섯 대 그대로 모집합니다."))
    assert change is None or change.candidate or change.past.seq != 70


def test_a_weekday_told_in_the_past_is_no_new_value() -> None:
    from datetime import date

    from mithub.record.pair_model import split_values

    done = "네, 그건 금요일에 세 번째 견적까지 받아서 비교표 공유드렸어요."
    new, old = split_values(done, extract_values(done, reference=date(2026, 5, 13)))
    assert not [v for v in new + old if v.kind == "date"]
    moved = "지난주에 22일로 잡았던 베타는 8월 5일에 열겠습니다."
    new, _ = split_values(moved, extract_values(moved, reference=date(2026, 5, 13)))
    assert [v.unit for v in new if v.kind == "date"] == ["2026-08-05"]


def test_a_line_that_names_the_old_choice_and_the_new_one_differs_from_the_decision() -> None:
    """The decision's line named both vendors; the line says which one was chosen and what
    replaces it, so the new vendor agreeing with a name in the decision's line is no restatement."""
    from mithub.record.pair_model import LineView, PastDecision, line_cues, pair_features, split_values

    decided = "It is cheaper than LogHaven, yes, but our security team trusts Sentrova. Sentrova it is."
    text = "So we said Sentrova last week, but we'll be using LogHaven instead."
    new, old = split_values(text, extract_values(text))
    assert [v.text for v in new] == ["LogHaven"] and [v.text for v in old] == ["Sentrova"]
    view = LineView(text, new, old, np.ones(4), None, set(), 0.5, line_cues(text))
    past = PastDecision("d1", decided, extract_values(decided), np.ones(4), set(), 0.8)
    (row,) = pair_features(view, [past])
    assert row["values_differ"] == 1.0 and row["values_agree"] == 0.0


def test_a_terse_decision_takes_its_subject_from_the_talk_before_it() -> None:
    """"한빛으로 가. 세 대." names no subject; the talk before it was about leasing refrigerated
    trucks. A later line about that lease is most about this decision by the share of its terms
    said in that talk, not about another decision whose line happens to share a word."""
    from mithub.record.changes import past_view
    from mithub.record.models import Decision
    from mithub.record.pair_model import LineView, PastDecision, key_terms, line_cues, pair_features

    text = "어쩔 수 없지. 냉탑 리스는 대성이랑 목요일에 계약해."
    view = LineView(text, [], [], np.ones(4), None, key_terms(text), 0.6, line_cues(text))
    lease = PastDecision("d1", "그럼 고민할 거 없네. 한빛으로 가. 세 대.", [], np.ones(4), set(), 0.8,
                         discussed={"냉탑", "트럭", "리스", "계약", "견적", "한빛", "대성"})
    opening = PastDecision("d2", "사월 육 일 월요일. 그날 연다. 목요일은 안 돼.", [], np.ones(4), {"목요일"}, 0.8,
                           discussed={"오픈", "센터", "화주", "목요일"})
    rows = pair_features(view, [lease, opening])
    assert rows[0]["discussed"] > rows[1]["discussed"] and rows[0]["discussed_margin"] > 0 > rows[1]["discussed_margin"]
    # a decision stored before the talk was kept reads its own words as its talk
    old = Decision.model_validate({"id": "w1#d7", "meeting_id": "w1", "seq": 7, "speaker": "a", "subject": "",
                                   "value": "", "quote": "냉탑 리스는 한빛으로 갑니다.", "time": "2026-05-06T05:00:00Z"})
    assert old.discussed == []
    (row,) = pair_features(view, [past_view(old, np.ones(4), [], None)])
    assert row["discussed"] == len(key_terms(old.quote) & view.terms) / len(view.terms) > 0
