from pydantic import BaseModel

from mithub.jsonl import LineErrors, iter_models


class Row(BaseModel):
    id: str
    n: int


def test_malformed_lines_are_reported_with_line_numbers_and_skipped(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"id": "a", "n": 1}\n{broken\n\n[1, 2]\n{"id": "b", "n": "x"}\n{"id": "c", "n": 3}\n')
    errors = LineErrors()
    rows = [(line, row.id) for line, row in iter_models(path, Row, errors)]
    assert rows == [(1, "a"), (6, "c")]
    assert [e.line for e in errors.errors] == [2, 4, 5]
    assert all(str(path) in str(e) for e in errors.errors)
    assert "n:" in str(errors.errors[2])
