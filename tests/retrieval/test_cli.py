import json
from pathlib import Path

import pytest

from mithub.cli import main

DATA = Path(__file__).parent / "data"


@pytest.fixture
def use_everywhere(monkeypatch):
    from mithub.config import get_retrieval_config

    monkeypatch.setenv("RETRIEVAL_EMBEDDING_MODEL", "use-multilingual")
    get_retrieval_config.cache_clear()
    yield
    get_retrieval_config.cache_clear()


def test_index_build_and_search_commands(tmp_path, capsys, use_everywhere):
    out = tmp_path / "idx"
    assert main(["index", "build", "--input", str(DATA / "docs"), "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr()
    assert "indexed 2 documents as" in printed.out
    assert main(["search", "재시작 정책에는 무엇이 있나?", "--index", str(out), "--top-k", "2"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("1. [pods.md#c") and "파드 > 생명주기 > 재시작 정책" in text
    assert main(["search", "install the worker", "--index", str(out), "--json", "--channels", "sparse"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["doc_id"] == "guide/install.md" and hits[0]["channel_ranks"] == {"sparse": 0}


def test_batch_search_writes_ranked_document_ids(tmp_path, capsys, use_everywhere):
    out = tmp_path / "idx"
    assert main(["index", "build", "--input", str(DATA / "corpus.jsonl"), "--out", str(out), "--no-progress"]) == 0
    assert "2 input lines skipped" in capsys.readouterr().out
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"id": "q1", "query": "와사비 적정 수온"}\n{"id": "q2", "query": "Lynch birthplace"}\nbroken\n')
    assert main(["search", "--index", str(out), "--queries", str(queries), "--top-k", "3", "--docs", "--json"]) == 0
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [line["id"] for line in lines] == ["q1", "q2"]
    assert lines[0]["ranked"][0] == "wasabi" and len(lines[0]["ranked"]) == len(set(lines[0]["ranked"])) == 3
    assert "david-lynch" in lines[1]["ranked"]
    assert "queries.jsonl:3" in captured.err


def test_unknown_channel_is_a_clear_error(tmp_path, capsys, built_index_dir):
    assert main(["search", "x", "--index", str(built_index_dir), "--channels", "dense,magic"]) == 1
    assert "unknown channel(s) magic" in capsys.readouterr().err
