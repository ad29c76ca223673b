"""`mithub replay --database-url`, `mithub meetings list|show`, `mithub db upgrade|current`."""

from __future__ import annotations

import json

import pytest
from mithub.cli import main
from mithub_meetings import sample_meeting_file


@pytest.fixture
def meeting_file(tmp_path):
    return sample_meeting_file(tmp_path / "planning.jsonl", lines=60)


def _json(capsys) -> dict:
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_replay_persists_and_meetings_show_prints_the_same_report(
    meeting_file, database_url, capsys
):
    replay = [
        "replay",
        str(meeting_file),
        "--database-url",
        database_url,
        "--meeting-id",
        "m1",
        "--json",
        "--no-progress",
    ]
    assert main(replay) == 0
    replayed = _json(capsys)
    assert replayed["utterance_count"] == 60 and replayed["topics"]

    assert main(["meetings", "show", "m1", "--database-url", database_url, "--json"]) == 0
    assert _json(capsys) == replayed

    assert main(replay) == 0  # the same command again: everything is stored, nothing added
    out, err = capsys.readouterr()
    assert json.loads(out) == replayed and "resuming meeting m1 after utterance 60" in err

    assert main(["meetings", "list", "--database-url", database_url, "--json"]) == 0
    [listed] = _json(capsys)
    assert (listed["id"], listed["utterance_count"], listed["title"]) == (
        "m1",
        60,
        "planning.jsonl",
    )
    assert listed["topic_count"] == len(replayed["topics"]) and listed["ended_at"]
    assert main(["meetings", "list", "--database-url", database_url]) == 0
    assert "m1" in capsys.readouterr().out

    assert main(["meetings", "show", "m1", "--database-url", database_url]) == 0
    text = capsys.readouterr().out
    assert "Topic timeline" in text and "planning.jsonl" in text


def test_resuming_with_another_file_is_refused(tmp_path, database_url, capsys):
    first = sample_meeting_file(tmp_path / "a.jsonl", lines=8)
    other = sample_meeting_file(tmp_path / "b.jsonl", lines=12, offset=20)
    args = ["--database-url", database_url, "--meeting-id", "m1", "--no-progress"]
    assert main(["replay", str(first), *args]) == 0
    capsys.readouterr()
    assert main(["replay", str(other), *args]) == 1
    err = capsys.readouterr().err
    assert "meeting m1 already holds 8 utterances that are not a replay of this file" in err


def test_unknown_meeting_and_missing_database_are_clear_errors(tmp_path, database_url, capsys):
    assert main(["db", "upgrade", "--database-url", database_url]) == 0
    assert "schema upgraded from empty to" in capsys.readouterr().out
    assert main(["db", "upgrade", "--database-url", database_url]) == 0
    assert "schema is up to date" in capsys.readouterr().out
    assert main(["db", "current", "--database-url", database_url]) == 0
    assert "(up to date)" in capsys.readouterr().out
    assert main(["meetings", "show", "nope", "--database-url", database_url]) == 1
    assert "no meeting 'nope'" in capsys.readouterr().err
    missing = f"sqlite+aiosqlite:///{tmp_path / 'absent.db'}"
    assert main(["meetings", "list", "--database-url", missing]) == 1
    assert "no database at" in capsys.readouterr().err
    assert not (tmp_path / "absent.db").exists()


def test_replay_keeps_no_database_unless_asked(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    meeting = sample_meeting_file(tmp_path / "m.jsonl", lines=5)
    assert main(["replay", str(meeting), "--no-progress"]) == 0
    assert not (tmp_path / "data").exists()
    assert main(["replay", str(meeting), "--no-progress", "--database-url"]) == 0
    assert (tmp_path / "data" / "mithub.db").is_file()  # the embedded default
    capsys.readouterr()
    assert main(["meetings", "list"]) == 0
    assert "m " in capsys.readouterr().out
