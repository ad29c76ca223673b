"""`mithub index build --input PATH --out DIR`: one-time, LLM-free indexing of a JSONL corpus
or a Markdown folder into the dense, sparse and Tri-Graph channels; `mithub index add
--index DIR --input PATH` appends documents without a rebuild. Both print where the time went."""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Iterator
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("index", help="build a retrieval index or add documents to one")
    actions = parser.add_subparsers(dest="index_command", metavar="ACTION", required=True)
    build = actions.add_parser("build", help="index a JSONL corpus file or a Markdown folder")
    build.add_argument("--input", required=True, type=Path, help="corpus.jsonl or a folder of .md files")
    build.add_argument("--out", required=True, type=Path, help="index directory (created; an interrupted build resumes in it)")
    build.add_argument("--no-progress", action="store_true", help="no progress bars")
    build.set_defaults(handler=_build)
    add = actions.add_parser("add", help="add the documents of a JSONL file or Markdown folder to an index")
    add.add_argument("--index", required=True, type=Path, help="index directory made by `mithub index build`")
    add.add_argument("--input", required=True, type=Path, help="corpus.jsonl or a folder of .md files")
    add.add_argument("--no-progress", action="store_true", help="no progress bars")
    add.set_defaults(handler=_add)


def _load_chunks(path: Path, profile, errors) -> list:  # noqa: ANN001
    from mithub.config import get_retrieval_config

    with profile.stage("load + chunk", "chunk") as stage:
        chunks = list(_first_chunk(path, get_retrieval_config(), errors))
        stage.items = len(chunks)
    return chunks


def _first_chunk(path: Path, config, errors) -> Iterator:  # noqa: ANN001
    """The corpus' chunks, failing before any model loads when there is none (naming the
    input, and whether it is empty or every line was skipped)."""
    from mithub.errors import InputError
    from mithub.jsonl import nothing_read
    from mithub.retrieval.loaders import load_corpus

    chunks = load_corpus(path, config, errors)
    first = next(chunks, None)
    if first is None:
        empty = "the folder holds no .md file" if path.is_dir() else "the file is empty"
        raise InputError(nothing_read(errors, "document to index", empty=empty), source=path)
    return itertools.chain([first], chunks)


def _build(args: argparse.Namespace) -> int:
    from mithub.config import get_retrieval_config
    from mithub.jsonl import LineErrors
    from mithub.retrieval.index import HybridIndex
    from mithub.retrieval.profile import BuildProfile, per_second

    errors = LineErrors(report=lambda error: print(f"skipped: {error}", file=sys.stderr))
    config = get_retrieval_config()
    chunks = _first_chunk(args.input, config, errors)
    profile = BuildProfile(progress=not args.no_progress)
    # Read while the dense channel already encodes: the build times "load + chunk" itself.
    index = HybridIndex.build(chunks, args.out, config, profile=profile)
    stats = index.trigraph.stats() if index.trigraph is not None else {}
    print(profile.summary())
    print(
        f"indexed {index.meta.documents} documents as {index.meta.chunks} chunks "
        f"({stats.get('sentences', 0)} sentences, {stats.get('entities', 0)} entities) "
        f"in {profile.total_seconds:.1f} s ({per_second(index.meta.documents, profile.total_seconds, 'documents')}) "
        f"-> {args.out}; {len(errors)} input lines skipped"
    )
    return 0


def _add(args: argparse.Namespace) -> int:
    from mithub.config import get_retrieval_config
    from mithub.embedders.factory import build_embedder
    from mithub.jsonl import LineErrors
    from mithub.retrieval.build import check_build_settings
    from mithub.retrieval.dense import load_docs
    from mithub.retrieval.index import HybridIndex, read_meta
    from mithub.retrieval.profile import BuildProfile

    config = get_retrieval_config()
    check_build_settings(read_meta(args.index).settings, config, args.index)
    errors = LineErrors(report=lambda error: print(f"skipped: {error}", file=sys.stderr))
    profile = BuildProfile(progress=not args.no_progress)
    chunks = _load_chunks(args.input, profile, errors)
    # The models load only when there is something to add (ids already indexed are skipped).
    known = {chunk.id for chunk in load_docs(args.index)}
    if all(chunk.id in known for chunk in chunks):
        print(f"nothing to add: the {len(chunks)} chunks of {args.input} are in {args.index} already; "
              f"{len(errors)} input lines skipped")
        return 0
    with profile.stage("load index", "chunk") as stage:
        index = HybridIndex.load(args.index, config, embedder=build_embedder(config.embedding_model, config.build_threads))
        stage.items = index.meta.chunks
    added = index.add_chunks(chunks, profile=profile)
    print(profile.summary())
    print(
        f"added {added} new chunks ({len(chunks) - added} already indexed) in {profile.total_seconds:.1f} s; "
        f"{args.index} now has {index.meta.documents} documents, {index.meta.chunks} chunks; "
        f"{len(errors)} input lines skipped"
    )
    return 0
