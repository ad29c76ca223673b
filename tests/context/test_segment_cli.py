"""`mithub segment --batch`: one output line per valid meeting, malformed lines named and skipped."""

import asyncio
import json

import pytest
import structlog

from mithub.cli import main
from mithub.cli.segment import SegmentationTurn, utterances_from_turns
from mithub.config import ContextConfig
from mithub.embedders import load_embedder
from mithub.topics.detector import TopicDetector, detect_boundaries

from ..topics.topic_meetings import BUDGET, HIRING, topic_turns


@pytest.fixture(autouse=True)
def _restore_logging():
    """`main` points structlog at this test's captured stderr, which pytest closes afterwards."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


def batch_line(meeting_id, *parts):
    turns = [{"speaker": name, "text": text} for part in parts for _, name, text in part]
    return json.dumps({"meeting_id": meeting_id, "turns": turns, "domain": "test"}, ensure_ascii=False)


def test_segment_batch_skips_a_malformed_line_and_processes_the_rest(tmp_path, capsys):
    batch = tmp_path / "meetings.jsonl"
    batch.write_text("\n".join([
        batch_line("two-topics", topic_turns(BUDGET, 30), topic_turns(HIRING, 30, offset=1)),
        '{"meeting_id": "broken", "turns": [',
        batch_line("one-topic", topic_turns(HIRING, 40)),
    ]) + "\n", encoding="utf-8")
    out = tmp_path / "boundaries.jsonl"

    code = main(["segment", "--batch", str(batch), "--out", str(out), "--no-progress"])

    assert code == 0
    assert f"{batch}:2:" in capsys.readouterr().err
    results = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["meeting_id"] for r in results] == ["two-topics", "one-topic"]
    two, one = results
    # What the live detector finds on the same turns (the boundary model, or its fallback).
    embedder = load_embedder(ContextConfig().embedding_model)
    for result, parts in ((two, (topic_turns(BUDGET, 30), topic_turns(HIRING, 30, offset=1))),
                          (one, (topic_turns(HIRING, 40),))):
        turns = [SegmentationTurn(speaker=name, text=text) for part in parts for _, name, text in part]
        live = asyncio.run(detect_boundaries(TopicDetector(ContextConfig(), embedder), utterances_from_turns(turns)))
        assert result["boundaries"] == [c.boundary_seq - 1 for c in live]
    assert one["boundaries"] == []


def test_segment_batch_without_a_valid_meeting_fails_clearly(tmp_path, capsys):
    batch = tmp_path / "meetings.jsonl"
    batch.write_text('{"turns": []}\nnot json\n', encoding="utf-8")

    assert main(["segment", "--batch", str(batch), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert f"{batch}:1:" in err and f"{batch}:2:" in err and "no valid meeting" in err
