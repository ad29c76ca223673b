"""A call on a finished meeting analyses each of its turns once (issue 19 item 6): the series
memory and the meeting's own transcript index ask for the same turns one after the other."""

from mithub.text.korean import _analyse, morphemes


def test_a_long_meetings_turns_are_analysed_once_for_two_readers():
    turns = [f"{n}번 안건은 다음 주 금요일까지 검토하기로 했습니다" for n in range(1500)]
    for turn in turns:
        morphemes(turn)
    before = _analyse.cache_info()

    for turn in turns:
        morphemes(turn)

    assert _analyse.cache_info().hits - before.hits == len(turns)
    assert _analyse.cache_info().misses == before.misses
