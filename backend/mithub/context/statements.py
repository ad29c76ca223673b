"""What a statement does, read from closed grammatical classes (never words of a meeting):
whether a question asks for content, and whether a statement's main clause is negated.

- A content question holds an interrogative pro-form (the closed wh-class of Korean and
  English); a yes/no question does not.
- Korean is head-final, so the main clause is what follows the last connective ending (kiwi
  tag EC), and negation is one of the language's forms: short 안/못, long -지 않다/못하다,
  lexical 없다/모르다/아니다. English: not, n't, no, never, cannot, nothing.
"""

from __future__ import annotations

import re

from mithub.text import has_hangul
from mithub.text.korean import morphemes

# Korean interrogative pro-forms (누구, 무엇/뭐, 언제, 어디, 어떻게/어떤/어느, 왜, 얼마, 몇) and English wh-words.
_KO_WH = re.compile(r"누구|누가|무엇|뭐|무슨|언제|어디|어떻|어떤|어느|왜|얼마|몇")
_EN_WH = re.compile(r"\b(?:who|whom|whose|what|when|where|which|why|how)\b", re.IGNORECASE)
# Korean negation: the short form's adverbs, the long form's auxiliaries, the lexical negatives.
_KO_NEGATION = frozenset({("안", "MAG"), ("못", "MAG"), ("않", "VX"), ("못하", "VX"), ("없", "VA"),
                          ("모르", "VV"), ("아니", "VCN")})
_EN_NEGATION = re.compile(r"\b(?:not|no|never|cannot|nothing)\b|n't\b", re.IGNORECASE)


def asks_for_content(question: str) -> bool:
    """A content (wh-) question, not a yes/no one."""
    return bool(_KO_WH.search(question) if has_hangul(question) else _EN_WH.search(question))


def main_clause_negated(sentence: str) -> bool:
    if not has_hangul(sentence):
        return bool(_EN_NEGATION.search(sentence))
    tokens = morphemes(sentence)
    last_connective = max((i for i, m in enumerate(tokens) if m.tag == "EC"), default=-1)
    return any((m.form, m.tag) in _KO_NEGATION for m in tokens[last_connective + 1:])
