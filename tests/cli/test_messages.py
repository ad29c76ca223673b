"""Messages that say what happened (issue 19 item 9): an unknown series is not an empty store,
an empty transcript or corpus names the input and does not point at warnings never printed."""

from __future__ import annotations

import pytest
import structlog

from mithub.cli import main
from mithub.store.sql import SqlRepository


@pytest.fixture(autouse=True)
def _restore_logging():
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


async def test_meetings_list_of_an_unknown_series_names_the_series_there_are(database, database_url, capsys):
    repository = SqlRepository(database)
    await repository.ensure_meeting("w1", series_id="planning", title="week 1")
    await repository.ensure_meeting("w2", series_id="planning", title="week 2")
    await repository.ensure_meeting("r1", series_id="retro", title="retro")

    assert await main_async(["meetings", "list", "--series", "nope", "--database-url", database_url]) == 0

    out = capsys.readouterr().out.strip()
    assert "no meetings in series nope" in out
    assert "planning (2)" in out and "retro (1)" in out
    assert "no meetings in sqlite" not in out


async def main_async(argv: list[str]) -> int:
    """`main` runs its own event loop: call it from a thread, as a shell would."""
    import asyncio

    return await asyncio.to_thread(main, argv)


def test_an_empty_transcript_says_it_is_empty_and_stores_no_meeting(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    database = tmp_path / "store.db"

    assert main(["replay", str(empty), "--database-url", f"sqlite+aiosqlite:///{database}"]) == 1

    err = capsys.readouterr().err
    assert "empty" in err and "above" not in err and str(empty) in err
    assert not database.exists()  # refused before anything was opened


def test_a_transcript_of_malformed_lines_points_at_the_warnings_it_printed(tmp_path, capsys):
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"text": "no speaker"}\nnot json\n')

    assert main(["replay", str(broken)]) == 1

    err = capsys.readouterr().err
    assert f"{broken}:1:" in err and f"{broken}:2:" in err and "2 line(s)" in err


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_an_empty_index_build_names_its_input_not_the_output(tmp_path, capsys, kind):
    source = tmp_path / ("corpus.jsonl" if kind == "file" else "docs")
    if kind == "file":
        source.write_text("")
    else:
        source.mkdir()
    out = tmp_path / "index"

    assert main(["index", "build", "--input", str(source), "--out", str(out), "--no-progress"]) == 1

    err = capsys.readouterr().err.strip()
    assert err.startswith(f"mithub: error: {source}:") and str(out) not in err
    assert ("no .md file" if kind == "folder" else "empty") in err and "above" not in err
    assert not out.exists()
