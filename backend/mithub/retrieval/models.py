"""Data that crosses the retrieval boundary: chunks on disk, hits returned to callers, and the
index metadata checked at load."""

from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from mithub.retrieval.profile import StageTiming

# Bumped whenever the on-disk layout changes; an index with another version must be rebuilt.
INDEX_FORMAT_VERSION = 2  # 2: Tri-Graph keeps its entity candidates; vector cache

ChannelName = Literal["dense", "sparse", "trigraph"]
CHANNELS: tuple[ChannelName, ...] = ("dense", "sparse", "trigraph")


class Source(BaseModel):
    """Where a chunk came from: a document (path, title, header path) or a past meeting
    (meeting, topic, speaker, time)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["document", "meeting_topic", "meeting_utterance"] = "document"
    path: str | None = None
    title: str | None = None
    header_path: list[str] = Field(default_factory=list)
    meeting_id: str | None = None
    topic: str | None = None
    speaker: str | None = None
    time: AwareDatetime | None = None

    def label(self) -> str:
        """One line for a citation: `docs/a.md > Setup > Install` or `meeting m1, Kim, 10:02`."""
        if self.kind == "document":
            parts = [self.path or self.title or "document", *self.header_path]
            return " > ".join(parts)
        when = self.time.strftime("%Y-%m-%d %H:%M UTC") if self.time else None
        parts = [f"meeting {self.meeting_id}", self.topic, self.speaker, when]
        return ", ".join(p for p in parts if p)


class Chunk(BaseModel):
    """The unit every channel indexes. `doc_id` groups the chunks of one document."""

    id: str
    doc_id: str
    text: str
    source: Source = Field(default_factory=Source)


class Hit(BaseModel):
    """One fused search result, with the rank each channel gave it (0-based; absent = not found)."""

    chunk_id: str
    doc_id: str
    text: str
    score: float
    source: Source
    channel_ranks: dict[str, int] = Field(default_factory=dict)


class IndexMeta(BaseModel):
    """`meta.json` at the index root: what the index was built with, checked at load."""

    format_version: int = INDEX_FORMAT_VERSION
    model_id: str
    dim: int
    embedding_model: str | None = Field(None, description="RETRIEVAL_EMBEDDING_MODEL the index was built with")
    trigraph_embedding_model: str | None = None
    trigraph_model_id: str | None = None
    trigraph_dim: int | None = None
    corpus_hash: str
    chunks: int
    documents: int
    channels: list[str]
    built_at: AwareDatetime
    build_seconds: float = 0.0
    build_stages: list[StageTiming] = Field(default_factory=list)
    settings: dict[str, int | float] = Field(default_factory=dict, description="chunking and entity settings; see build.py")
    meetings: list[str] = Field(default_factory=list)
