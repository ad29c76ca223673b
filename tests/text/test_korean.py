"""One kiwi analysis serves morphemes and sentences: the same as asking kiwi for each."""

from kiwipiepy import Kiwi

from mithub.text.korean import korean_sentences, morphemes

TEXTS = [
    "3분기 예산은 2억 4천만 원으로 확정했습니다. 김지현 님이 업체 검토를 맡습니다",
    " 네 그럼 다음 안건으로 넘어가죠 화자 분리 먼저 하고요 ",
    "\nGPU 서버는 A100 두 대로 합니다.\n\n보안 검토는 다음 주 금요일까지",
    "음 그러니까 그건 좀 어렵고요? 아니 제 말은 P1로 두자는 거죠!",
]


def test_morphemes_and_sentences_equal_separate_kiwi_calls():
    kiwi = Kiwi(load_multi_dict=False)
    for text in TEXTS:
        assert [(m.form, m.tag) for m in morphemes(text)] == [
            (t.form, t.tag.split("-")[0]) for t in kiwi.tokenize(text)
        ]
        assert korean_sentences(text) == [s.text.strip() for s in kiwi.split_into_sents(text) if s.text.strip()]
    assert morphemes("  ") == [] and korean_sentences("") == []


def test_callers_get_their_own_lists():
    first = morphemes(TEXTS[0])
    first.clear()
    assert morphemes(TEXTS[0]) and korean_sentences(TEXTS[0])


def test_a_multi_word_name_stays_searchable_by_its_words():
    """Kiwi's multi-word dictionary (left out: it was most of a CLI command's start) would
    make "네이버 쇼핑" one token, and a search for "쇼핑" would miss it."""
    from mithub.text import content_tokens

    assert {"네이버", "쇼핑"} <= set(content_tokens("네이버 쇼핑 입점 일정을 다시 보죠"))
