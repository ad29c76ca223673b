"""Corpus loading (seed 001 §3.3.1, seed 004 step 1): a JSONL file of `{"id", "text"}`
records or a folder of Markdown files, both turned into `Chunk`s."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, Field, field_validator

from mithub.config import RetrievalConfig
from mithub.errors import InputError
from mithub.jsonl import LineErrors, iter_models
from mithub.retrieval.chunking import (
    doc_id_of,
    is_chunk_id,
    markdown_title,
    split_markdown_sections,
    split_text,
    strip_front_matter,
    window_chunks,
)
from mithub.retrieval.models import Chunk, Source

MARKDOWN_SUFFIXES = (".md", ".markdown")


class CorpusRecord(BaseModel):
    """One JSONL line. `title`, when present, is prepended to the text: a passage's title is
    often the only place its subject is named."""

    id: str = Field(min_length=1)
    text: str
    title: str | None = None

    @field_validator("id")
    @classmethod
    def _strip_id(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("id is blank")
        return value


def _record_text(record: CorpusRecord) -> str:
    title = (record.title or "").strip()
    if title and not record.text.lstrip().startswith(title):
        return f"{title}\n{record.text}"
    return record.text


def load_jsonl(path: Path, config: RetrievalConfig, errors: LineErrors) -> Iterator[Chunk]:
    """Chunks of a JSONL corpus: `#cN` ids kept as they are, other records window-chunked."""
    for _, record in iter_models(path, CorpusRecord, errors):
        text = _record_text(record)
        source = Source(kind="document", path=str(path), title=record.title)
        if is_chunk_id(record.id):
            if text.strip():
                yield Chunk(id=record.id, doc_id=doc_id_of(record.id), text=text, source=source)
            continue
        windows = window_chunks(text, config.window_sentences, config.window_stride)
        for number, window in enumerate(windows):
            yield Chunk(id=f"{record.id}#c{number}", doc_id=record.id, text=window, source=source)


def markdown_chunks(doc_id: str, text: str, config: RetrievalConfig, path: str) -> list[Chunk]:
    """Header-aware then size-aware chunks of one Markdown document."""
    body = strip_front_matter(text)
    title = markdown_title(body)
    chunks: list[Chunk] = []
    for section in split_markdown_sections(body):
        # Parent headers go in front of the section so a chunk read alone keeps its context.
        parents = "\n".join(f"{'#' * (i + 1)} {h}" for i, h in enumerate(section.headers[:-1]))
        size = config.markdown_chunk_size
        for piece in split_text(section.text, size, config.markdown_chunk_overlap):
            chunk_text = f"{parents}\n{piece}" if parents else piece
            source = Source(kind="document", path=path, title=title, header_path=section.headers)
            chunks.append(
                Chunk(id=f"{doc_id}#c{len(chunks)}", doc_id=doc_id, text=chunk_text, source=source)
            )
    return chunks


def load_markdown_folder(folder: Path, config: RetrievalConfig, errors: LineErrors) -> Iterator[Chunk]:
    """Every `.md` file under `folder`, recursively; the document id is the relative path."""
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in MARKDOWN_SUFFIXES and p.is_file())
    for file in files:
        relative = file.relative_to(folder).as_posix()
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            errors.add(InputError(f"cannot read Markdown file ({exc}); file skipped", source=file))
            continue
        yield from markdown_chunks(relative, text, config, str(file))


def load_corpus(path: Path, config: RetrievalConfig, errors: LineErrors) -> Iterator[Chunk]:
    """A JSONL file or a Markdown folder, by what `path` is."""
    if path.is_dir():
        return load_markdown_folder(path, config, errors)
    if path.is_file():
        return load_jsonl(path, config, errors)
    raise InputError("not found; give a JSONL corpus file or a folder of Markdown files", source=path)
