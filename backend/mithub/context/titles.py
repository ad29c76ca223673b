"""Topic titles that name the subject: the noun phrase the topic's decisions and key terms
share ("베타 출시", "화자 분리 오류 수정"), not a pair of keywords ("배치 · 비용").

A noun phrase is read off the text as written: Korean words (eojeol) whose morphemes (kiwi)
are nouns, foreign words and the pieces glued to them ("Q3", "검증용", "ISMS-P"), in a row;
a word that carries a particle or a verb ending closes the phrase ("서버를" -> "서버"), a word
that starts with a number is a value, not a name ("4대", "7월 22일"). English: runs of words
that are not stopwords (nor bits such as the "s" of "it 's").

The title is the phrase holding most of the topic's key terms, taken from its decisions when
they name one (what a topic settles is what it is about), else from its key sentences; ties go
to the phrase whose key terms most sentences of the topic share. Participants' names are never
key terms. None when no phrase holds a key term: the caller keeps the name it has.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from mithub.context.summary import SummaryResult
from mithub.text import content_tokens, has_hangul, split_sentences
from mithub.text.korean import Token, tokens_with_offsets
from mithub.text.tokens import ENGLISH_STOPWORDS

_HEAD = frozenset({"NNG", "NNP", "SL", "SH", "XR"})  # a word of a name starts with one of these
_GLUED = _HEAD | frozenset({"SN", "XSN", "SO"})  # ... and may go on with these, unspaced
KEYWORD_JOIN = " · "  # how a keyword-pair name is joined (the detector's proposal, the fallback)
ROLE_FIRST = True  # a decision's topic/subject phrase before key-term weight (benchmarks/topic_titles.py)
MAX_WORDS = 4  # a longer phrase is cut to its last words (Korean puts the head noun last)
_WORD = re.compile(r"\S+")
# Nouns that head an adverbial clause after an adnominal ending ("끊어질 때", "늦어질 경우",
# "회의하는 동안"): the clause's head, not the first word of the noun phrase after it.
_CLAUSE_HEADS = frozenset({"때", "경우", "동안", "사이", "후", "뒤", "전", "중", "다음", "이후", "이전", "정도", "만큼"})
_EN_WORD = re.compile(r"[A-Za-z][\w'-]*|\d[\w.%-]*")


def noun_phrases(sentence: str) -> list[str]:
    """The noun phrases of `sentence`, as written, in order."""
    return [phrase for phrase, _ in marked_phrases(sentence)]


def marked_phrases(sentence: str) -> list[tuple[str, int]]:
    """Each noun phrase with its role in the clause, read off the particle that closes it:
    2 for the topic or the subject (은/는, 이/가: what a Korean statement is about), 1 for the
    object (을/를), 0 otherwise (and for English, which has no such marks)."""
    if not has_hangul(sentence):
        return [(p, 0) for p in _english_phrases(sentence)]
    tokens = tokens_with_offsets(sentence)
    phrases: list[tuple[str, int]] = []
    run: list[tuple[int, int]] = []  # (start, end) of each word's noun part

    def close(role: int = 0) -> None:
        if run:
            words = run[-MAX_WORDS:]
            phrases.append((sentence[words[0][0]:words[-1][1]], role))
            run.clear()

    after_clause = False  # the word before ended in an adnominal ending (ETM)
    for word in _WORD.finditer(sentence):
        inside = [t for t in tokens if word.start() <= t.start < word.end()]
        noun = _noun_part(inside)
        if after_clause and noun and noun[0].form in _CLAUSE_HEADS:
            noun = []
        after_clause = bool(inside) and inside[-1].tag == "ETM"
        if not noun:
            close()
            continue
        run.append((noun[0].start, noun[-1].end))
        if len(noun) < len(inside):  # a particle or an ending: the phrase ends with this word
            close(_role(inside[len(noun)]))
    close()
    return phrases


def _role(particle: Token) -> int:
    if particle.tag == "JKS" or (particle.tag == "JX" and particle.form in ("은", "는", "ᆫ")):
        return 2
    return 1 if particle.tag == "JKO" else 0


def _noun_part(tokens: list[Token]) -> list[Token]:
    if not tokens or tokens[0].tag not in _HEAD:
        return []
    part = [tokens[0]]
    for token in tokens[1:]:
        if token.tag not in _GLUED or token.start != part[-1].end:
            break
        part.append(token)
    return part


def _english_phrases(sentence: str) -> list[str]:
    phrases, run = [], []
    for match in _EN_WORD.finditer(sentence):
        word = match.group()
        if word.lower() in ENGLISH_STOPWORDS or word[0].isdigit() or len(word) < 3 and not word.isupper():
            if run:
                phrases.append(" ".join(run[-MAX_WORDS:]))
            run = []
        else:
            run.append(word)
    if run:
        phrases.append(" ".join(run[-MAX_WORDS:]))
    return phrases


def subject_title(sources: Sequence[Sequence[str]], key_terms: Sequence[str], *, names: Iterable[str] = (),
                  role_first: bool = ROLE_FIRST) -> str | None:
    """The title of a topic: from the first group of `sources` (decisions, key sentences, then
    all its turns) that has a phrase holding a key term or a decision's subject. Ranked by
    what a statement is about (a topic- or subject-marked phrase, `role_first`), then a phrase
    of several words over a single noun (a lone "비용" or "금요일" names no subject), the
    weight of the key terms it holds (the first key term counts most), then how many
    sentences of the topic share its words."""
    names_ = _name_terms(names)
    weight = {t: 1.0 / (1 + rank) for rank, t in enumerate(key_terms) if t not in names_}
    everything = [set(content_tokens(s)) for group in sources for s in group]
    for group in sources:
        best: tuple[float, ...] | None = None
        title = None
        for position, (phrase, role) in enumerate(_phrases(group)):
            terms = set(content_tokens(phrase)) - names_
            held = sum(weight.get(t, 0.0) for t in terms)
            subject = role == 2 and role_first
            if not terms or len(phrase) < 2 or not held and not subject:  # "돈": too bare to name
                continue
            support = sum(1 for said in everything if terms & said)
            rank = (subject, " " in phrase, held, support, -position)
            if best is None or rank > best:
                best, title = rank, phrase
        if title is not None:
            return title
    return None


def _phrases(texts: Sequence[str]) -> Iterable[tuple[str, int]]:
    for text in texts:
        for sentence in split_sentences(text) or [text]:
            yield from marked_phrases(sentence)


def _name_terms(names: Iterable[str]) -> set[str]:
    """A participant's name and, for a Korean full name, the given name ("민호" of "최민호")."""
    out: set[str] = set()
    for name in names:
        out.update(content_tokens(name))
        if has_hangul(name) and len(name) == 3:
            out.update(content_tokens(name[1:]))
    return out


def summary_title(result: SummaryResult, names: Iterable[str], *, named: bool, texts: Sequence[str] = (),
                  role_first: bool = ROLE_FIRST) -> str | None:
    """The title a topic takes when it is summarized (None: keep its name): its decisions, key
    sentences and `texts` (its turns) name it; a topic not yet `named` (the meeting's first)
    falls back to its two first keywords. A name an LLM gave (LLM summaries) is kept."""
    if named and result.mode == "llm":
        return None
    title = subject_title([result.decisions, result.key_points, texts], result.keywords, names=names,
                          role_first=role_first)
    if title is None and not named and result.keywords:
        return KEYWORD_JOIN.join(result.keywords[:2])
    return title


def opening_title(proposed: str, texts: Sequence[str], names: Iterable[str] = ()) -> str | None:
    """The title of a topic that has just begun: the detector proposes the keywords that set
    its first turns apart ("베타 · 출시"); the phrase of those turns holding them names it
    ("베타 출시 일정"). None for a name that is no keyword pair (an LLM's) or no such phrase."""
    if KEYWORD_JOIN not in proposed:
        return None
    return subject_title([texts], [k.strip() for k in proposed.split(KEYWORD_JOIN)], names=names)
