"""`mithub segment --batch` (issue 19 item 7): a plain transcript file is one meeting, a file in
neither format fails in one line naming the formats, an empty file says it is empty."""

import json
from pathlib import Path

import pytest
import structlog

from mithub.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "meetings" / "en_sprint_review.jsonl"


@pytest.fixture(autouse=True)
def _restore_logging():
    """`main` points structlog at this test's captured stderr, which pytest closes afterwards."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


def test_a_transcript_file_is_segmented_as_one_meeting(tmp_path, capsys):
    out = tmp_path / "boundaries.jsonl"

    code = main(["segment", "--batch", str(EXAMPLE), "--out", str(out), "--no-progress"])

    err = capsys.readouterr().err
    assert code == 0, err
    assert "Field required" not in err and "warning" not in err
    (result,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert result["meeting_id"] == "en_sprint_review"
    turns = sum(1 for line in EXAMPLE.read_text(encoding="utf-8").splitlines() if line.strip())
    assert result["boundaries"] and all(0 < b < turns for b in result["boundaries"])


def test_a_file_in_neither_format_fails_in_one_line_naming_both(tmp_path, capsys):
    other = tmp_path / "other.jsonl"
    other.write_text("\n".join(json.dumps({"id": n, "query": "q"}) for n in range(50)) + "\n")

    assert main(["segment", "--batch", str(other), "--no-progress"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1
    assert '"meeting_id"' in lines[0] and '"turns"' in lines[0] and "transcript" in lines[0]


def test_an_empty_file_says_so_without_pointing_at_warnings(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")

    assert main(["segment", "--batch", str(empty), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "empty" in err and "above" not in err and len(err.strip().splitlines()) == 1
