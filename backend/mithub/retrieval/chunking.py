"""Chunking rules (seed 001 §3.3.1–3.3.2, seed 004 step 2).

JSONL documents: sentence split (Korean and English), then windows of W sentences moved by
stride S, ids `doc#c0, doc#c1, ...`; an id already ending in `#cN` is a chunk and is kept.
Markdown: split on `#`/`##`/`###` headers (header path kept), then sections longer than
the chunk size are cut on paragraph, line, sentence, then word boundaries with overlap.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from mithub.text import split_sentences

CHUNK_ID = re.compile(r"#c\d+$")
_HEADER = re.compile(r"^(#{1,3})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", " ", "")


def is_chunk_id(doc_id: str) -> bool:
    return CHUNK_ID.search(doc_id) is not None


def doc_id_of(chunk_id: str) -> str:
    """`doc#c3` -> `doc`; other ids are their own document."""
    return CHUNK_ID.sub("", chunk_id)


def window_starts(n_sentences: int, window: int, stride: int) -> list[int]:
    """Window start offsets; the last window always reaches the final sentence."""
    starts = [0]
    while starts[-1] + window < n_sentences:
        starts.append(starts[-1] + stride)
    return starts


def window_chunks(text: str, window: int, stride: int) -> list[str]:
    """Sentence windows of `window` sentences every `stride` sentences."""
    sentences = split_sentences(text)
    if not sentences:
        return []
    return [
        " ".join(sentences[start : start + window])
        for start in window_starts(len(sentences), window, stride)
    ]


@dataclass
class Section:
    """A Markdown section: its header path (`# A`, `## B` -> [A, B]) and body text."""

    headers: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip()


def strip_front_matter(text: str) -> str:
    """Drop a leading YAML front matter block (`---` ... `---`)."""
    match = re.match(r"\A\ufeff?---\s*\n.*?\n(---|\.\.\.)\s*(\n|\Z)", text, flags=re.DOTALL)
    return text[match.end() :] if match else text


def markdown_title(text: str) -> str | None:
    """The first level-1 header outside code fences."""
    for headers, _ in _header_lines(text):
        if headers is not None and headers[0] == 1:
            return headers[1]
    return None


def _header_lines(text: str):  # noqa: ANN202 - private generator
    """(header (level, title) or None, line) per line; `#` inside code fences is not a header."""
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            yield None, line
            continue
        match = None if in_fence else _HEADER.match(line)
        yield ((len(match.group(1)), match.group(2)) if match else None), line


def split_markdown_sections(text: str) -> list[Section]:
    """Sections at each `#`, `##`, `###` header; the header line stays in the section text
    so a chunk read alone still says what it is about."""
    sections: list[Section] = [Section()]
    path: list[str] = []
    for header, line in _header_lines(text):
        if header is not None:
            level, title = header
            path = path[: level - 1] + [""] * max(0, level - 1 - len(path)) + [title]
            sections.append(Section(headers=[p for p in path if p]))
        sections[-1].lines.append(line)
    return [s for s in sections if s.text]


def split_text(text: str, size: int, overlap: int, separators: Sequence[str] = SEPARATORS) -> list[str]:
    """Recursive size split: pieces no longer than `size` characters, consecutive pieces
    sharing up to `overlap` characters, cut at the coarsest boundary that fits."""
    if len(text) <= size:
        return [text] if text.strip() else []
    sep = next((s for s in separators if s and s in text), "")
    rest = separators[separators.index(sep) + 1 :] if sep in separators else ()
    pieces = text.split(sep) if sep else list(text)
    chunks: list[str] = []
    fitting: list[str] = []
    for piece in pieces:
        if len(piece) <= size:
            fitting.append(piece)
            continue
        chunks.extend(_merge(fitting, sep, size, overlap))
        fitting = []
        chunks.extend(split_text(piece, size, overlap, rest))
    chunks.extend(_merge(fitting, sep, size, overlap))
    return [c for c in chunks if c.strip()]


def _merge(pieces: list[str], sep: str, size: int, overlap: int) -> list[str]:
    """Greedily join pieces up to `size`; each new chunk starts with the tail of the last
    one (at most `overlap` characters) so context is not cut mid-thought."""
    chunks: list[str] = []
    current: list[str] = []
    length = 0
    for piece in pieces:
        extra = len(piece) + (len(sep) if current else 0)
        if current and length + extra > size:
            chunks.append(sep.join(current).strip())
            while current and (length > overlap or length + extra > size):
                length -= len(current[0]) + (len(sep) if len(current) > 1 else 0)
                current.pop(0)
        current.append(piece)
        length += len(piece) + (len(sep) if len(current) > 1 else 0)
    if current:
        chunks.append(sep.join(current).strip())
    return chunks
