"""Compressed sparse row adjacency in plain numpy, saved as `.npz` with the same keys as
`scipy.sparse.save_npz` (so scipy can open the files) and loaded with pickle off."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mithub.errors import IndexFormatError


@dataclass
class CSR:
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    shape: tuple[int, int]

    @classmethod
    def from_pairs(
        cls, rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int], data: np.ndarray | None = None
    ) -> CSR:
        """Rows/cols pairs (duplicates summed) to CSR."""
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        values = np.ones(rows.size, np.float32) if data is None else np.asarray(data, np.float32)
        if rows.size:
            keys = rows * shape[1] + cols
            unique, inverse = np.unique(keys, return_inverse=True)
            summed = np.zeros(unique.size, dtype=np.float32)
            np.add.at(summed, inverse, values)
            rows, cols, values = unique // shape[1], unique % shape[1], summed
        indptr = np.zeros(shape[0] + 1, dtype=np.int64)
        np.add.at(indptr, rows + 1, 1)
        return cls(np.cumsum(indptr), cols.astype(np.int32), values, shape)

    def row(self, i: int) -> np.ndarray:
        return self.indices[self.indptr[i] : self.indptr[i + 1]]

    def row_data(self, i: int) -> np.ndarray:
        return self.data[self.indptr[i] : self.indptr[i + 1]]

    def gather(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The entries of several rows in one call, row after row: (position of the row in
        `rows`, column, value) per entry; a query reads hundreds of rows, one slice each is slow."""
        rows = np.asarray(rows, dtype=np.int64)
        starts = self.indptr[rows]
        lengths = self.indptr[rows + 1] - starts
        owner = np.repeat(np.arange(rows.size), lengths)
        # Entry k of the output is entry (k - first output entry of its row) of that row.
        entries = np.arange(owner.size) + np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
        return owner, self.indices[entries], self.data[entries]

    def rows_of_entries(self) -> np.ndarray:
        """The row index of every stored entry."""
        return np.repeat(np.arange(self.shape[0], dtype=np.int64), np.diff(self.indptr))

    def transpose(self) -> CSR:
        return CSR.from_pairs(self.indices, self.rows_of_entries(), (self.shape[1], self.shape[0]), self.data)

    def map_columns(self, mapping: np.ndarray, n_columns: int) -> CSR:
        """Same rows, each column c replaced by mapping[c] (duplicates summed)."""
        return CSR.from_pairs(self.rows_of_entries(), mapping[self.indices], (self.shape[0], n_columns), self.data)

    def save(self, path: Path) -> None:
        np.savez(
            path,
            indptr=self.indptr,
            indices=self.indices,
            data=self.data,
            shape=np.asarray(self.shape, dtype=np.int64),
            format=np.asarray("csr"),
        )

    @classmethod
    def load(cls, path: Path) -> CSR:
        if not path.is_file():
            raise IndexFormatError(f"{path} is missing; rebuild the index with `mithub index build`")
        with np.load(path, allow_pickle=False) as arrays:
            shape = tuple(int(x) for x in arrays["shape"])
            return cls(arrays["indptr"], arrays["indices"], arrays["data"], (shape[0], shape[1]))
