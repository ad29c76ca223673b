import json
import shutil
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
import structlog

from mithub.context.models import TopicSegment, Utterance
from mithub.embedders import load_embedder
from mithub.errors import IndexFormatError
from mithub.retrieval.index import HybridIndex
from mithub.retrieval.retriever import Retriever


def test_build_load_and_search_fused(built_index_dir, retrieval_config):
    index = HybridIndex.load(built_index_dir, retrieval_config)
    assert isinstance(index, Retriever)
    assert index.channels == ["dense", "sparse", "trigraph"]
    hits = index.search("와사비 잎이 누렇게 변하는 원인은?")
    assert len(hits) == retrieval_config.top_k
    assert hits[0].chunk_id == "wasabi#c1"
    assert set(hits[0].channel_ranks) == {"dense", "sparse", "trigraph"}
    # Each channel's best hit opens the list, then fused order: scores fall within each part.
    rankings = index.channel_rankings("와사비 잎이 누렇게 변하는 원인은?")
    tops = {index.chunks[rows[0]].id for rows in rankings.values()}
    leading = [h for h in hits if h.chunk_id in tops]
    assert hits[: len(leading)] == leading
    for part in (leading, hits[len(leading):]):
        assert [h.score for h in part] == sorted((h.score for h in part), reverse=True)


def test_single_channel_search(built_index_dir, retrieval_config):
    index = HybridIndex.load(built_index_dir, retrieval_config)
    hits = index.search("Missoula Montana university", top_k=2, channels=["sparse"])
    assert hits[0].doc_id == "missoula" and set(hits[0].channel_ranks) == {"sparse"}


def test_missing_channel_is_dropped_with_warning(built_index_dir, retrieval_config, tmp_path):
    copy = tmp_path / "idx"
    shutil.copytree(built_index_dir, copy)
    shutil.rmtree(copy / "trigraph")
    with structlog.testing.capture_logs() as logs:
        index = HybridIndex.load(copy, retrieval_config)
    assert index.channels == ["dense", "sparse"]
    assert any(e["event"] == "retrieval_channel_dropped" and e["channel"] == "trigraph" for e in logs)
    assert index.search("Blue Velvet director")[0].doc_id in {"blue-velvet", "david-lynch"}


def test_embedder_mismatch_is_a_clear_error(built_index_dir, retrieval_config):
    with pytest.raises(IndexFormatError, match="built with embedder 'use-multilingual-v3' \\(512 dims\\).*e5"):
        HybridIndex.load(built_index_dir, retrieval_config, embedder=load_embedder("e5-small"))


def test_format_version_mismatch_is_a_clear_error(built_index_dir, retrieval_config, tmp_path):
    copy = tmp_path / "idx"
    shutil.copytree(built_index_dir, copy)
    meta = json.loads((copy / "meta.json").read_text())
    meta["format_version"] = 999
    (copy / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(IndexFormatError, match="format 999.*rebuild"):
        HybridIndex.load(copy, retrieval_config)
    with pytest.raises(IndexFormatError, match="mithub index build"):
        HybridIndex.load(tmp_path / "nothing", retrieval_config)


def _meeting(start: datetime) -> tuple[list[TopicSegment], list[Utterance]]:
    lines = [
        ("kim", "김민수", "다음 주 출시 일정을 정해야 합니다."),
        ("lee", "이지은", "베타 출시는 3월 둘째 주 화요일로 결정했습니다."),
        ("kim", "김민수", "좋습니다. 마케팅 자료는 제가 준비하겠습니다."),
    ]
    utterances = [
        Utterance(id=i + 1, speaker_id=sid, speaker_name=name, text=text,
                  absolute_timestamp=start + timedelta(minutes=i), topic="출시 일정")
        for i, (sid, name, text) in enumerate(lines)
    ]
    segment = TopicSegment(id="t1", name="출시 일정", summary="베타 출시일을 3월 둘째 주 화요일로 결정했다.",
                           start_utterance_id=1, end_utterance_id=3,
                           key_decisions=["베타 출시: 3월 둘째 주 화요일"], participants=["김민수", "이지은"])
    return [segment], utterances


def test_finished_meetings_are_added_incrementally_and_found(built_index_dir, retrieval_config, tmp_path):
    copy = tmp_path / "idx"
    shutil.copytree(built_index_dir, copy)
    index = HybridIndex.load(copy, retrieval_config)
    before = len(index.chunks)
    start = datetime(2025, 3, 3, 1, 0, tzinfo=timezone.utc)
    segments, utterances = _meeting(start)
    assert index.add_meeting("weekly-10", segments, utterances) == 4
    assert index.add_meeting("weekly-10", segments, utterances) == 0  # idempotent
    reloaded = HybridIndex.load(copy, retrieval_config)
    assert len(reloaded.chunks) == before + 4 and reloaded.meta.meetings == ["weekly-10"]
    hits = reloaded.search("지난주에 베타 출시일을 언제로 결정했지?")
    top = hits[0]
    assert top.doc_id == "meeting:weekly-10"
    assert top.source.meeting_id == "weekly-10" and top.source.time is not None
    assert top.source.kind in {"meeting_topic", "meeting_utterance"}
    utterance_hit = next(h for h in hits if h.source.kind == "meeting_utterance")
    assert utterance_hit.source.speaker in {"김민수", "이지은"}
    assert utterance_hit.source.time.tzinfo is not None


def test_no_pickle_in_any_artefact(built_index_dir):
    files = [p for p in built_index_dir.rglob("*") if p.is_file()]
    assert files and not [p for p in files if p.suffix in {".pkl", ".pickle"}]
    for path in files:
        head = path.read_bytes()[:2]
        assert head != b"\x80\x04" and head != b"\x80\x05", path  # pickle protocol headers
        if path.suffix == ".npy":
            np.load(path, allow_pickle=False)
        elif path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as arrays:
                [arrays[k] for k in arrays.files]
        elif path.suffix in {".json", ".jsonl"}:
            text = path.read_text(encoding="utf-8")
            [json.loads(line) for line in text.splitlines() if line.strip()] if path.suffix == ".jsonl" else json.loads(text)
