"""Topic titles name the subject (issue 19 item 13): the noun phrase a topic's decisions and
key terms share, not a pair of keywords; and a topic's summary leads with its most
informative sentence. Checked on general sentences and on the sample meetings' agenda items
(their facts files name each item and its turns)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mithub.budget import TokenBudgetManager
from mithub.context import cues
from mithub.context.extractive import ExtractiveSummarizer
from mithub.context.speaker_context import is_question
from mithub.context.statements import main_clause_negated
from mithub.context.titles import noun_phrases, opening_title, subject_title, summary_title
from mithub.context.transcript import read_transcript
from mithub.jsonl import LineErrors
from mithub.record.values import extract_values
from mithub.text import content_tokens

from .conftest import utterance

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "meetings"


def test_noun_phrases_are_read_as_written_and_values_are_no_part_of_them():
    assert "신규 결제 모듈 출시" in noun_phrases("신규 결제 모듈 출시는 6월 3일로 확정하겠습니다.")
    assert not any("6월" in p or "3일" in p for p in noun_phrases("신규 결제 모듈 출시는 6월 3일로 확정하겠습니다."))
    assert noun_phrases("데이터센터 이전 비용은 8천만 원 한도로 하죠.")[0] == "데이터센터 이전 비용"
    assert "B2B 요금제" in noun_phrases("B2B 요금제를 먼저 열기로 했어요.")
    assert "release date" in noun_phrases("We moved the release date to Friday.")


def test_the_noun_heading_an_adverbial_clause_starts_no_phrase():
    # "끊어질 때 오류가": 때 closes the clause "when it is cut"; the phrase is 오류. A noun
    # after a clause that is not such a head still starts one ("만든 서버 구성").
    assert noun_phrases("짧게 끊어질 때 오류가 몰려 있어요.") == ["오류"]
    assert noun_phrases("납기가 늦어질 경우 대체 서버를 쓰죠.") == ["납기", "대체 서버"]
    assert noun_phrases("새로 만든 서버 구성은 좋아요.") == ["서버 구성"]


def test_the_title_is_the_phrase_the_decisions_and_key_terms_share():
    decisions = ["좋습니다. 신규 결제 모듈 출시는 6월 3일로 확정하겠습니다.", "QA는 두 명이 맡기로 했습니다."]
    key = ["결제", "모듈", "출시", "일정", "qa"]
    assert subject_title([decisions, []], key) == "신규 결제 모듈 출시"
    # without decisions, the key sentences name it: what a statement is about first
    assert subject_title([[], ["사내 교육 프로그램 예산부터 볼게요.", "네, 교육 예산은 작년과 같아요."]],
                         ["교육", "예산"]) == "교육 예산"
    assert subject_title([[], ["사내 교육 프로그램 예산부터 볼게요."]], ["교육", "예산"]) == "사내 교육 프로그램 예산"


def test_a_new_topic_is_named_by_the_phrase_of_its_first_turns_holding_the_proposed_keywords():
    opening = ["자, 다음 안건으로 넘어가죠. 신규 채용 계획입니다.", "네, 백엔드 두 명 채용을 생각하고 있어요."]
    assert opening_title("채용 · 계획", opening) == "신규 채용 계획"
    assert opening_title("LLM이 붙인 이름", opening) is None  # not a keyword pair: kept


def test_a_participant_is_never_the_subject():
    title = subject_title([["민호 님 보고서 초안은 금요일까지 부탁드려요."]], ["민호", "보고서", "초안"],
                          names=["최민호"])
    assert title == "보고서 초안"


def _agenda(name: str):
    facts = json.loads((EXAMPLES / f"{name}.facts.json").read_text(encoding="utf-8"))
    turns = [utterance(i, u.text, u.speaker_id, u.speaker_name)
             for i, (_, u) in enumerate(read_transcript(EXAMPLES / f"{name}.jsonl", LineErrors()), start=1)]
    for item in facts["agenda"]:
        yield item, [t for t in turns if item["first_seq"] <= t.id <= item["last_seq"]]


MEETINGS = ["ko_product_planning", "ko_product_planning_2", "en_sprint_review"]


@pytest.fixture(scope="module")
def summarized(embedder):
    import asyncio

    summarizer = ExtractiveSummarizer(embedder, TokenBudgetManager(), 500)
    out = []
    for name in MEETINGS:
        for item, turns in _agenda(name):
            names = sorted({t.speaker_name for t in turns})
            result = asyncio.run(summarizer.summarize("topic", turns, None, names))
            out.append((name, item, result, names))
    return out


def test_agenda_items_are_titled_by_a_phrase_of_their_own_decisions(summarized):
    """No keyword pair: each title is a noun phrase of the item's decisions (when it settled
    something) or of its key sentences, and holds one of its key terms or is what a decision
    is about."""
    for _, item, result, names in summarized:
        title = summary_title(result, names, named=True)
        assert title and " · " not in title, (item["name"], result.keywords)
        own = [p for d in result.decisions for p in noun_phrases(d)] if result.decisions else \
            [p for s in result.key_points for p in noun_phrases(s)]
        assert title in own, (item["name"], title, own)


def test_korean_titles_name_what_the_decisions_are_about(summarized):
    """A Korean decision marks its subject (은/는, 이/가): "베타 출시는 7월 22일로 확정"."""
    titles = {(name, item["name"]): summary_title(result, names, named=True)
              for name, item, result, names in summarized if name.startswith("ko_")}
    assert titles[("ko_product_planning", "Q3 예산")] == "Q3 클라우드 예산"
    assert titles[("ko_product_planning", "베타 출시 일정")] == "베타 출시"
    assert titles[("ko_product_planning_2", "GPU 서버 도입")] == "온프레미스 검증 서버"
    assert titles[("ko_product_planning_2", "베타 오픈 준비")] == "베타 오픈 시간"


def test_summaries_lead_with_an_informative_sentence(summarized):
    """The first line asks nothing and does not decline ("기억이 안 나네요"); when the summary
    holds a decision, it is one."""
    for _, item, result, _ in summarized:
        lines = [line.split(": ", 1)[1] for line in result.summary.splitlines()]
        lead = lines[0]
        assert not is_question(lead), (item["name"], lead)
        assert not main_clause_negated(lead) or extract_values(lead), (item["name"], lead)
        if any(cues.is_decision(line) for line in lines):
            assert cues.is_decision(lead), (item["name"], lead)
