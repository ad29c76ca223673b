"""The memory's cache on disk: one file per finished meeting and embedding model, holding
its turns, topics, vectors and search tokens (numpy `.npz` with pickle off; the rest as JSON
bytes).

A finished meeting does not change, so its file is written once. Files are written to a
private temporary name and renamed into place (atomic on POSIX): two processes (or worker
machines sharing a folder) that cache the same meeting at once both write a complete file,
and a reader sees the old file or the new one, never half of one. A file that does not
match the store (another model, the meeting reopened and finished again, a newer format) is
stale and is rebuilt from the store.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import structlog

from mithub.context.models import TopicSegment, Utterance
from mithub.store.records import MeetingInfo

logger = structlog.get_logger(__name__)

CACHE_FORMAT = 2  # 2: each turn's search tokens (a call on the meeting analyses none again)


@dataclass
class CachedMeeting:
    info: MeetingInfo
    utterances: list[Utterance]
    segments: list[TopicSegment]
    vectors: np.ndarray  # one row per utterance, the meeting embedder's document vectors
    model_id: str
    tokens: list[list[str]] | None = None  # per utterance, its BM25 tokens (`turn_tokens`)


def cache_path(root: Path, model_id: str, meeting_id: str) -> Path:
    model = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id)[:80]
    name = hashlib.blake2b(meeting_id.encode(), digest_size=12).hexdigest()
    return root / model / f"{name}.npz"


def save_meeting(root: Path, meeting: CachedMeeting) -> Path:
    path = cache_path(root, meeting.model_id, meeting.info.id)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "format": CACHE_FORMAT,
        "model_id": meeting.model_id,
        "info": meeting.info.model_dump(mode="json"),
        "utterances": [u.model_dump(mode="json") for u in meeting.utterances],
        "segments": [s.model_dump(mode="json") for s in meeting.segments],
        "tokens": meeting.tokens,
    }
    temporary = path.with_name(f".{path.stem}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with temporary.open("wb") as handle:
            np.savez(handle, vectors=np.asarray(meeting.vectors, dtype=np.float32),
                     meta=np.frombuffer(json.dumps(meta, ensure_ascii=False).encode(), dtype=np.uint8))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path


def load_meeting(root: Path, model_id: str, info: MeetingInfo) -> CachedMeeting | None:
    """The cached meeting if its file matches the store's `info`; None if missing or stale."""
    path = cache_path(root, model_id, info.id)
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(data["meta"].tobytes().decode())
            vectors = np.asarray(data["vectors"], dtype=np.float32)
        cached = CachedMeeting(
            info=MeetingInfo.model_validate(meta["info"]),
            utterances=[Utterance.model_validate(u) for u in meta["utterances"]],
            segments=[TopicSegment.model_validate(s) for s in meta["segments"]],
            vectors=vectors, model_id=meta["model_id"], tokens=meta.get("tokens"),
        )
        fresh = (meta["format"] == CACHE_FORMAT and cached.model_id == model_id
                 and cached.info == info and len(cached.utterances) == len(vectors)
                 and cached.tokens is not None and len(cached.tokens) == len(vectors))
    except Exception as exc:  # noqa: BLE001 - a broken cache file is rebuilt, never fatal
        logger.warning("memory_cache_unreadable", path=str(path), error=f"{type(exc).__name__}: {exc}")
        return None
    if not fresh:
        logger.info("memory_cache_stale", meeting_id=info.id, path=str(path))
        return None
    return cached
