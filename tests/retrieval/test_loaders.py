from pathlib import Path

from mithub.jsonl import LineErrors
from mithub.retrieval.loaders import load_corpus, load_markdown_folder

DATA = Path(__file__).parent / "data"


def test_jsonl_chunk_ids_kept_others_window_chunked(retrieval_config):
    errors = LineErrors()
    chunks = list(load_corpus(DATA / "corpus.jsonl", retrieval_config, errors))
    ids = [c.id for c in chunks]
    assert "wasabi#c0" in ids and "wasabi#c1" in ids
    assert "blue-velvet#c0" in ids
    assert ids.count("smartfarm#c0") == 1 and "smartfarm#c1" in ids  # 7 sentences -> 2 windows
    assert {c.doc_id for c in chunks if c.id.startswith("wasabi")} == {"wasabi"}
    blue = next(c for c in chunks if c.id == "blue-velvet#c0")
    assert blue.text.startswith("Blue Velvet") and blue.source.title == "Blue Velvet"


def test_bad_lines_reported_with_line_numbers_and_skipped(retrieval_config):
    errors = LineErrors()
    list(load_corpus(DATA / "corpus.jsonl", retrieval_config, errors))
    messages = [str(e) for e in errors.errors]
    assert len(messages) == 2
    assert messages[0].endswith("not valid JSON (Expecting value); line skipped")
    assert ":7:" in messages[0] and ":8:" in messages[1] and "text" in messages[1]


def test_markdown_folder_chunks_carry_path_title_and_header_path(retrieval_config):
    chunks = list(load_markdown_folder(DATA / "docs", retrieval_config, LineErrors()))
    by_doc = {}
    for chunk in chunks:
        by_doc.setdefault(chunk.doc_id, []).append(chunk)
    assert set(by_doc) == {"pods.md", "guide/install.md"}
    pods = by_doc["pods.md"]
    assert [c.id for c in pods] == [f"pods.md#c{i}" for i in range(len(pods))]
    assert all("weight: 10" not in c.text for c in pods)
    assert {c.source.title for c in pods} == {"파드"}
    paths = [c.source.header_path for c in pods]
    assert ["파드", "생명주기", "재시작 정책"] in paths
    restart = pods[paths.index(["파드", "생명주기", "재시작 정책"])]
    # the chunk read alone still names its parents
    assert restart.text.startswith("# 파드\n## 생명주기\n### 재시작 정책")
    assert restart.source.label().endswith("pods.md > 파드 > 생명주기 > 재시작 정책")


def test_long_markdown_section_is_size_split_with_overlap(tmp_path, retrieval_config):
    body = "\n\n".join(f"Paragraph {i}. " + "Pods share storage and network. " * 8 for i in range(20))
    (tmp_path / "long.md").write_text(f"# Long\n\n## Part\n\n{body}\n", encoding="utf-8")
    chunks = list(load_markdown_folder(tmp_path, retrieval_config, LineErrors()))
    assert len(chunks) > 3
    assert all(len(c.text) <= retrieval_config.markdown_chunk_size + 20 for c in chunks)
    assert all(c.source.header_path == ["Long", "Part"] for c in chunks[1:])
