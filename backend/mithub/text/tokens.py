"""Content tokens for keyword extraction and lexical search (Korean morphemes, English words)."""

from __future__ import annotations

import re

_HANGUL = re.compile(r"[가-힣]")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'\-]*[A-Za-z0-9]|[A-Za-z]|\d+(?:[.,]\d+)*")

ENGLISH_STOPWORDS = frozenset(
    """a about above after again against all also am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does doesn't
    doing don't down during each few for from further get gets got had hadn't has hasn't have haven't
    having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm
    i've if in into is isn't it it's its itself just let let's like me more most mustn't my myself no
    nor not now of off on once only or other ought our ours ourselves out over own really same shan't
    she she'd she'll she's should shouldn't so some such than that that's the their theirs them
    themselves then there there's these they they'd they'll they're they've this those through to too
    um uh under until up very was wasn't we we'd we'll we're we've were weren't what what's when
    when's where where's which while who who's whom why why's will with won't would wouldn't yeah
    yes you you'd you'll you're you've your yours yourself yourselves okay ok oh right well mm hmm
    mhm gonna wanna kind sort thing things actually maybe think know mean going go one two lot
    something anything everything way yep yup alright sure guess say said see look just still even
    much many need want make made put take""".split()
)

# Korean forms that are content-tagged by kiwipiepy but carry no topic (bound nouns, fillers).
KOREAN_STOPWORDS = frozenset(
    "것 수 등 때 거 게 데 중 뭐 좀 네 예 이 그 저 분 님 번 개 점 하 되 있 없 같 보 주 말 생각 부분 정도 얘기 이제 그냥 진짜 약간 우리 저희".split()
)


def has_hangul(text: str) -> bool:
    return _HANGUL.search(text) is not None


def _english_tokens(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def content_tokens(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Lowercase search tokens: Korean content morphemes (nouns, stems, foreign words, numbers)
    plus English words. Stopwords dropped unless asked to keep them."""
    from mithub.text.korean import CONTENT_TAGS, morphemes

    if has_hangul(text):
        tokens = [m.form.lower() for m in morphemes(text) if m.tag in CONTENT_TAGS]
    else:
        tokens = _english_tokens(text)
    if keep_stopwords:
        return tokens
    return [t for t in tokens if t not in ENGLISH_STOPWORDS and t not in KOREAN_STOPWORDS]


def keyword_candidates(text: str) -> list[str]:
    """Noun-like keywords: Korean nouns/proper nouns/foreign words, English non-stopwords of
    three or more letters and numbers with units."""
    from mithub.text.korean import NOUN_TAGS, morphemes

    if has_hangul(text):
        out = []
        for m in morphemes(text):
            if m.tag in NOUN_TAGS and m.form not in KOREAN_STOPWORDS and len(m.form) > 1:
                out.append(m.form.lower() if m.tag == "SL" else m.form)
        return out
    return [
        w
        for w in _english_tokens(text)
        if len(w) >= 3 and not w.isdigit() and w not in ENGLISH_STOPWORDS
    ]
