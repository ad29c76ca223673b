"""The shared turn features read grammar by kiwi tag, not by phrase: the final ending's mood,
-겠-, -기로, negation and conditionals; English modality; values and the next turns."""

from __future__ import annotations

from datetime import date

import pytest

from mithub.record.turn_features import Turn, adopts_proposal, analyse_turn, korean_morphology, meeting_features

REF = date(2026, 5, 4)


def _ko(text: str) -> dict[str, float]:
    return korean_morphology(analyse_turn(text, reference=REF, names=()).morphemes)


def test_korean_mood_comes_from_the_final_ending_tag() -> None:
    assert _ko("구청 앞 광장으로 옮깁시다.")["mood_propositive"] == 1.0  # EF ㅂ시다, a verb no table lists
    assert _ko("그렇게 하시죠.")["mood_propositive"] == 1.0  # EP 시 + EF 죠
    assert _ko("그건 제가 정리할게요.")["mood_volitional"] == 1.0
    assert _ko("이걸로 갈까요?")["mood_interrogative"] == 1.0
    assert _ko("그게 맞습니까")["mood_interrogative"] == 1.0  # no question mark: the ending says it
    # the causal -니까 closing a sentence ("because I'm in charge") asks nothing
    assert _ko("이번 시퀀싱은 지노믹스원으로 진행하겠습니다, 제가 담당이니까요.")["mood_interrogative"] == 0.0
    assert _ko("예산은 1억 8천입니다.")["mood_declarative"] == 1.0
    assert _ko("하기로 했어요.")["ko_giro"] == 1.0 and _ko("하기로 했어요.")["ko_past"] == 1.0
    assert _ko("8월 5일로 하겠습니다.")["ko_future_gyet"] == 1.0
    assert _ko("승인 안 나면 방법이 없지.")["conditional"] == 1.0
    assert _ko("올리지 말자.")["negated"] == 1.0
    assert _ko("하는 게 좋겠어요.")["ko_nominal_hedge"] == 1.0


def test_next_turns_say_who_agrees_and_whether_the_value_is_repeated() -> None:
    turns = [Turn("a", "푸드트럭은 몇 대로 할까요?"), Turn("b", "좋아, 푸드트럭은 15대로 모집하자."),
             Turn("c", "네, 15대."), Turn("a", "Okay, let's go with Relaymark then."), Turn("b", "Sure.")]
    full = meeting_features(turns, reference=REF, lookahead=2)
    live = meeting_features(turns, reference=REF, lookahead=0)
    assert full[1]["next_agrees"] == 1.0 and full[1]["next_repeats_value"] == 1.0
    assert full[1]["prev_asks"] == 1.0 and full[1]["value_count"] == 1.0
    assert live[1]["next_agrees"] == 0.0 and live[1]["prev_asks"] == 1.0  # the live path reads no later turn
    assert full[3]["mood_propositive"] == 1.0 and full[3]["value_name"] == 1.0 and full[3]["lang_ko"] == 0.0


@pytest.mark.parametrize(("text", "adopts"), [
    ("좋습니다. 그렇게 하죠.", True),  # EF 죠
    ("그래요, 그렇게 합시다.", True),  # propositive
    ("어 그래, 그렇게 해.", True),  # the pro-form 그렇게 with a verb, whatever the ending
    ("네, 좀 빠듯해요.", False),  # an answer, not a settlement
    ("네, 됩니다.", False),
    ("네, 좋습니다. 고객사에도 이제 그렇게 말씀드릴 수 있겠네요.", False),  # 그렇게 with a verb of telling
    ("그땐 원가가 달랐죠.", False),  # -죠 confirms a fact
    ("그건 그때 가서 봅시다.", False),  # defers: no pro-form of the proposal
    ("그렇게 안 하죠.", False),  # negated
    ("그렇게 할까요?", False),  # asked
    ("Fine, do it.", True),  # a bare imperative with a pro-form object
    ("okay, go with that.", True),
    ("Okay, let's do that.", True),
    ("Yeah, that would be tough.", False),  # a subject: a statement
    ("Okay, I can check.", False),
    ("No, let's not do that.", False),
    ("Sure.", False),
    ("Okay, let's move on.", False),
])
def test_an_agreement_adopts_a_proposal_by_its_grammar(text: str, adopts: bool) -> None:
    assert adopts_proposal(analyse_turn(text, reference=REF, names=())) is adopts
