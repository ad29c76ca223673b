"""Parse the JSON object an LLM produced, tolerating what small local models get wrong:
code fences, prose around the object, raw newlines inside strings, trailing commas.
Output cut off mid-object is not guessed at: it raises, and the caller falls back."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from mithub.errors import LLMOutputError

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _outer_object(text: str) -> str | None:
    """The first balanced {...} in `text`, string-aware."""
    start = text.find("{")
    if start < 0:
        return None
    depth = 0
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return None


def _escape_control_chars_in_strings(raw: str) -> str:
    out = []
    in_string = False
    escaped = False
    for ch in raw:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            elif ch == "\n":
                out.append("\\n")
                continue
            elif ch in "\r\t":
                out.append("\\r" if ch == "\r" else "\\t")
                continue
        elif ch == '"':
            in_string = True
        out.append(ch)
    return "".join(out)


def parse_json_object(text: str) -> dict[str, Any]:
    """The JSON object in an LLM answer, or `LLMOutputError` saying why there is none."""
    if not text or not text.strip():
        raise LLMOutputError("the LLM returned an empty answer")
    fenced = _FENCE.search(text)
    candidate = _outer_object(fenced.group(1) if fenced else text)
    if candidate is None:
        raise LLMOutputError(f"no complete JSON object in the LLM answer ({len(text)} chars)")
    for attempt in (
        candidate,
        _escape_control_chars_in_strings(candidate),
        _TRAILING_COMMA.sub(r"\1", _escape_control_chars_in_strings(candidate)),
    ):
        try:
            value = json.loads(attempt)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
        raise LLMOutputError("the LLM answer is JSON but not an object")
    raise LLMOutputError("the LLM answer is not valid JSON even after repair")


def parse_into(text: str, model: type[M]) -> M:
    """`parse_json_object` then validate into `model`; any failure is an LLMOutputError."""
    data = parse_json_object(text)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise LLMOutputError(f"the LLM JSON does not match {model.__name__}: {exc.errors()[0]['msg']}") from exc
