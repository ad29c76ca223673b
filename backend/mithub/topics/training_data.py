"""The meetings the topic boundary model learns from, read from the benchmark data folder:

- `segmentation/qmsum_train.jsonl`: 162 real meetings (AMI, ICSI, committees) with gold topic
  spans. Turns no gold span covers (`turn_topic` -1) carry no label: they are fed to the
  detector like every turn but never trained or scored on.
- `decisions/<series>/topics.json` with `meeting1.jsonl`/`meeting2.jsonl`: invented Korean and
  English meetings (about 60 turns, 5 topics each); a series is one group, so a validation fold
  leaves whole series out.
- optionally, more series folders in that format (`load_extra`; not trained on by default).

Turns become TurnFeatures exactly as the live detector builds them (topics/turns.py), with the
embeddings computed in batches and optionally cached as .npy files (never pickle).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mithub.context.cues import is_decision
from mithub.embedders import Embedder
from mithub.learn.series_roots import extra_series_roots
from mithub.topics.cues import cue_strength
from mithub.topics.turns import TurnFeatures, content_terms, spoken_text

QMSUM_FILE = Path("segmentation") / "qmsum_train.jsonl"
SERIES_DIR = Path("decisions")
_EMBED_BATCH = 256


@dataclass(frozen=True)
class RawMeeting:
    meeting_id: str
    source: str  # "qmsum" or "series"
    group: str  # the unit a validation fold leaves out: the meeting (QMSum) or the series
    speakers: list[str]
    texts: list[str]
    boundaries: list[int]  # turn indices that start a new topic (0 excluded)
    labelled: list[bool]  # turns a gold topic covers (scored and trained on)


@dataclass(frozen=True)
class Meeting:
    raw: RawMeeting
    turns: list[TurnFeatures]


def load_qmsum(path: Path, limit: int | None = None) -> list[RawMeeting]:
    meetings = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            record = json.loads(line)
            turns = record["turns"]
            meetings.append(RawMeeting(
                meeting_id=record["meeting_id"], source="qmsum", group=record["meeting_id"],
                speakers=[t.get("speaker", "") or "unknown" for t in turns],
                texts=[t.get("text", "") for t in turns],
                boundaries=sorted(b for b in record["boundaries"] if b > 0),
                labelled=[topic != -1 for topic in record["turn_topic"]],
            ))
            if limit and len(meetings) >= limit:
                break
    return meetings


def load_series(folder: Path) -> list[RawMeeting]:
    meetings = []
    for topics_path in sorted(folder.glob("*/topics.json")):
        topics = json.loads(topics_path.read_text(encoding="utf-8"))
        series = topics["series_id"]
        for number, meeting in enumerate(topics["meetings"], start=1):
            lines = (topics_path.parent / f"meeting{number}.jsonl").read_text(encoding="utf-8")
            turns = [json.loads(line) for line in lines.splitlines() if line.strip()]
            meetings.append(RawMeeting(
                meeting_id=meeting["meeting_id"], source="series", group=series,
                speakers=[t.get("speaker_name") or t.get("speaker_id") or "unknown" for t in turns],
                texts=[t.get("text", "") for t in turns],
                boundaries=sorted(t["start"] for t in meeting["topics"] if t["start"] > 0),
                labelled=[True] * len(turns),
            ))
    return meetings


def load_raw(data: Path, qmsum_limit: int | None = None) -> list[RawMeeting]:
    """Both sources under the benchmark `data` folder (QMSum first, then the series)."""
    return load_qmsum(data / QMSUM_FILE, qmsum_limit) + load_series(data / SERIES_DIR)


def load_extra(roots: Sequence[Path]) -> list[RawMeeting]:
    """More series in the benchmark's format, read as the benchmark's series are: one more
    held-out group each (`learn.series_roots` checks each root)."""
    return [m for root in extra_series_roots(roots, "topics.json") for m in load_series(root)]


def _digest(texts: Sequence[str], model_id: str) -> str:
    h = hashlib.blake2b(model_id.encode(), digest_size=16)
    for text in texts:
        h.update(text.encode() + b"\x00")
    return h.hexdigest()


def embed_unique(
    texts: Sequence[str], embedder: Embedder, cache: Path | None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, np.ndarray]:
    """One vector per distinct text; with `cache`, read from/written to `<digest>.npy`."""
    unique = sorted(set(texts))
    path = cache / f"topic-embeddings-{_digest(unique, embedder.model_id)}.npy" if cache else None
    if path is not None and path.exists():
        vectors = np.load(path, allow_pickle=False)
    else:
        parts = []
        for start in range(0, len(unique), _EMBED_BATCH):
            parts.append(np.asarray(embedder.embed_documents(unique[start:start + _EMBED_BATCH]), dtype=np.float32))
            if progress:
                progress(min(start + _EMBED_BATCH, len(unique)), len(unique))
        vectors = np.vstack(parts) if parts else np.zeros((0, embedder.dim), dtype=np.float32)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            np.save(path, vectors, allow_pickle=False)
    return dict(zip(unique, vectors, strict=True))


def build_meetings(
    raws: Sequence[RawMeeting], embedder: Embedder, cache: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Meeting]:
    """TurnFeatures for every turn, as TopicDetector._features builds them."""
    spoken = [[spoken_text(text) for text in raw.texts] for raw in raws]
    terms = [[content_terms(text) for text in texts] for texts in spoken]
    wanted = [t for texts, bags in zip(spoken, terms) for t, b in zip(texts, bags) if b]
    vectors = embed_unique(wanted, embedder, cache, progress)
    meetings = []
    for raw, texts, bags in zip(raws, spoken, terms, strict=True):
        turns = [
            TurnFeatures(seq=i + 1, speaker=speaker, terms=bag,
                         vector=vectors[text] if bag else None, cue=cue_strength(text),
                         decision=float(is_decision(text)))
            for i, (speaker, text, bag) in enumerate(zip(raw.speakers, texts, bags, strict=True))
        ]
        meetings.append(Meeting(raw, turns))
    return meetings
