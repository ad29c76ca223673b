"""Does a statement supply what a question asks for? Used to choose the sentence a template
answer leads with.

A content question ("몇 대로 했죠?", "어떻게 하기로 했었죠?", "when is the beta?") is answered
by a statement that says something: a value, or a clause that is not negated. A reply whose
main clause is negated and that names no value ("그거 얘기는 했는데 정확히 기억이 안 나네요",
"I don't remember") supplies nothing the question asked for, though it follows the question.
Both are read from closed grammatical classes (`context/statements.py`), never words of a
meeting; a yes/no question is answered by a negation as well as by a yes.
"""

from __future__ import annotations

from mithub.context.statements import asks_for_content, main_clause_negated
from mithub.record.values import extract_values

__all__ = ["asks_for_content", "main_clause_negated", "supplies_answer"]


def supplies_answer(sentence: str, question: str) -> bool:
    """False for a statement that cannot answer the content question `question`: its main
    clause negated and no value in it. Anything else may answer it (a yes/no question is
    answered by a negation too)."""
    if not asks_for_content(question):
        return True
    return not main_clause_negated(sentence) or bool(extract_values(sentence))
