"""Entity candidates of every Tri-Graph sentence, before the document-frequency filter.

Kept on disk (`trigraph/candidates.npz` + `candidates.json`) so that adding chunks redoes the
filter over the whole corpus from stored candidates: an incremental add then gives the same
entities, hence the same graph and rankings, as a full build, and no old sentence is parsed
(or encoded) again."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mithub.errors import IndexFormatError
from mithub.retrieval.csr import CSR

NAMES_FILE = "candidates.json"
MATRIX_FILE = "candidates.npz"


@dataclass
class Candidates:
    names: list[str]
    s2c: CSR  # sentence -> candidate column

    @classmethod
    def empty(cls) -> Candidates:
        return cls([], CSR.from_pairs(np.zeros(0), np.zeros(0), (0, 0)))

    @property
    def sentences(self) -> int:
        return self.s2c.shape[0]

    def extend(self, found: Sequence[set[str]]) -> Candidates:
        """These candidates plus one row per new sentence."""
        lookup = {name: i for i, name in enumerate(self.names)}
        names = list(self.names)
        rows, cols = [], []
        for row, found_names in enumerate(found):
            for name in sorted(found_names):
                column = lookup.get(name)
                if column is None:
                    column = lookup[name] = len(names)
                    names.append(name)
                rows.append(self.sentences + row)
                cols.append(column)
        old = self.s2c
        s2c = CSR.from_pairs(
            np.concatenate([old.rows_of_entries(), np.asarray(rows, np.int64)]),
            np.concatenate([old.indices.astype(np.int64), np.asarray(cols, np.int64)]),
            (self.sentences + len(found), len(names)),
        )
        return Candidates(names, s2c)

    def entities(self, min_df: int, max_df_ratio: float, max_df_floor: int, max_df_cap: int | None) -> list[str]:
        """The same rule as `entities.filter_by_df`, from sentence counts per candidate."""
        df = np.bincount(self.s2c.indices, minlength=len(self.names))
        max_df = max(max_df_floor, int(max_df_ratio * self.sentences))
        if max_df_cap is not None:
            max_df = min(max_df, max_df_cap)
        keep = np.flatnonzero((df >= min_df) & (df <= max_df))
        return sorted(self.names[i] for i in keep.tolist())

    def s2e(self, entities: Sequence[str]) -> CSR:
        """Sentence -> entity adjacency for a chosen entity list."""
        entity_of = np.full(len(self.names), -1, np.int64)
        lookup = {name: i for i, name in enumerate(self.names)}
        for i, name in enumerate(entities):
            entity_of[lookup[name]] = i
        rows = self.s2c.rows_of_entries()
        mapped = entity_of[self.s2c.indices] if self.s2c.indices.size else np.zeros(0, np.int64)
        keep = mapped >= 0
        return CSR.from_pairs(rows[keep], mapped[keep], (self.sentences, len(entities)))

    def save(self, directory: Path) -> None:
        self.s2c.save(directory / MATRIX_FILE)
        (directory / NAMES_FILE).write_text(json.dumps(self.names, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, directory: Path) -> Candidates:
        if not (directory / NAMES_FILE).is_file():
            raise IndexFormatError(f"{directory / NAMES_FILE} is missing; rebuild the index with `mithub index build`")
        names = json.loads((directory / NAMES_FILE).read_text(encoding="utf-8"))
        return cls(names, CSR.load(directory / MATRIX_FILE))
