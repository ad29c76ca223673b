import pytest
from pydantic import BaseModel

from mithub.errors import LLMOutputError
from mithub.llm.json_output import parse_into, parse_json_object


class Summary(BaseModel):
    summary: str
    keywords: list[str] = []


def test_plain_object():
    assert parse_json_object('{"summary": "ok"}') == {"summary": "ok"}


def test_fenced_object_with_prose_around():
    text = 'Here is the JSON:\n```json\n{"summary": "예산 확정", "keywords": ["예산"]}\n```\nDone.'
    assert parse_into(text, Summary).keywords == ["예산"]


def test_raw_newline_inside_string_is_repaired():
    assert parse_json_object('{"summary": "line one\nline two"}')["summary"] == "line one\nline two"


def test_trailing_comma_is_repaired():
    assert parse_json_object('{"keywords": ["a", "b",], "summary": "x",}')["keywords"] == ["a", "b"]


@pytest.mark.parametrize(
    "broken",
    [
        "",
        "no json here",
        '{"summary": "cut off at max_tok',  # output truncated by max_tokens
        '["a list", "not an object"]',
        '{"summary": }',
    ],
)
def test_broken_output_raises_llm_output_error(broken):
    with pytest.raises(LLMOutputError):
        parse_json_object(broken)


def test_wrong_shape_raises_llm_output_error():
    with pytest.raises(LLMOutputError, match="Summary"):
        parse_into('{"keywords": ["a"]}', Summary)
