import json
from pathlib import Path

from mithub.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "meetings"


def test_malformed_lines_are_reported_and_the_rest_is_replayed(tmp_path, capsys):
    path = tmp_path / "meeting.jsonl"
    lines = [
        json.dumps({"speaker": "kim", "text": "예산 얘기부터 하죠."}),
        "{not json",
        json.dumps({"speaker": "park", "text": ""}),
        json.dumps({"speaker_id": "park", "speaker_name": "박서준", "text": "예산은 2억으로 확정하겠습니다.",
                    "start_ms": 5000, "end_ms": 8000}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", str(path), "--json", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["utterance_count"] == 2
    assert f"{path}:2:" in err and f"{path}:3:" in err
    assert "2 malformed line(s) skipped" in err


def test_missing_file_is_one_clear_error(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.jsonl"), "--no-progress"]) == 1
    assert "file not found" in capsys.readouterr().err


def test_demo_meeting_finds_topics_summaries_and_planted_decisions(capsys):
    facts = json.loads((EXAMPLES / "ko_product_planning.facts.json").read_text(encoding="utf-8"))
    assert main(["replay", str(EXAMPLES / "ko_product_planning.jsonl"), "--json", "--no-progress"]) == 0
    report = json.loads(capsys.readouterr().out)
    topics = report["topics"]
    assert len(topics) >= 3
    assert all(t["summary"].strip() for t in topics)
    listed = " ".join(d for t in topics for d in t["key_decisions"])
    found = [d for d in facts["decisions"] if all(s in listed for s in d["must_contain"])]
    assert len(found) >= 0.75 * len(facts["decisions"]), [d["text"] for d in facts["decisions"] if d not in found]
    roles = {s["speaker_id"]: s["role"] for s in report["speakers"]}
    assert roles == facts["roles"]
