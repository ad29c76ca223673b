"""`--isa avx2`: run a benchmark as on a CPU without AVX512 or bf16 units (an AVX2-only EPYC)
on one that has them. The caps go into the environment before torch or TensorFlow load, so
the benchmark's child processes inherit them: oneDNN (torch's and TensorFlow's), MKL, fbgemm,
ATen's own kernels and CTranslate2's all stop at AVX2, and `RETRIEVAL_E5_PRECISION=auto` then picks int8,
as it would there. The results name the CPU and say that its ISA was capped."""

from __future__ import annotations

import argparse
import os

CAPS = {
    "avx2": {
        "ONEDNN_MAX_CPU_ISA": "AVX2",
        "ATEN_CPU_CAPABILITY": "avx2",
        "MKL_ENABLE_INSTRUCTIONS": "AVX2",
        "FBGEMM_ENABLE_INSTRUCTIONS": "AVX2",
        "CT2_FORCE_CPU_ISA": "AVX2",  # CTranslate2's own kernels (Whisper)
    },
}


def add_isa_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--isa", choices=sorted(CAPS),
                        help="cap the instruction set (stand in for a CPU without bf16 units)")


def cap_isa(isa: str | None) -> None:
    """Set the caps for this process and its children; call before torch is imported."""
    for name, value in CAPS.get(isa or "", {}).items():
        os.environ[name] = value


def isa_note(isa: str | None, capability: str, runtime: str) -> str:
    """One sentence for the results: the cap (if any), what torch saw and which e5 path ran."""
    seen = f"torch's CPU capability in the encoder process: {capability}; e5 path that ran: `{runtime}`"
    if not isa:
        return f"ISA not capped ({seen})."
    settings = " ".join(f"{k}={v}" for k, v in CAPS[isa].items())
    return f"ISA capped to {isa.upper()} to stand in for a CPU without bf16 units ({settings}; {seen})."


def e5_runtime() -> tuple[str, str]:
    """torch's CPU capability and the e5 path `RETRIEVAL_E5_PRECISION` selects here, without
    loading the model (the same choice the embedder makes)."""
    import torch

    from mithub.config import RetrievalConfig
    from mithub.embedders.e5_precision import bf16_is_fast, choose_precision

    precision = choose_precision(RetrievalConfig().e5_precision, bf16_is_fast())
    return torch.backends.cpu.get_cpu_capability(), f"e5-small/torch-{precision}"
