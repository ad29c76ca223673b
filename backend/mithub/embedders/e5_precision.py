"""How e5-small's matrix products run on this CPU (RETRIEVAL_E5_PRECISION), chosen at load:

- `bf16`: bfloat16 products, fast only where the CPU has bf16 units (AMX or AVX512-BF16:
  ~2 TFLOPS a core against 0.14 in float32); elsewhere torch emulates bf16 slowly.
- `int8`: three of the four Linear products of each layer (Q/K/V, attention out, FFN in) in
  int8 with per-row weight scales, activations quantized per call (torch's dynamic
  quantisation, oneDNN kernels); the FFN's output product, attention, GELU and the norms stay
  in float32. With the FFN output in int8 too (its input is GELU's long-tailed output, one
  scale per call) vectors fell to cosine 0.992 of float32 and dense R@5 by 0.025-0.028 on
  musique100 and ko_autorag_dev; kept in float32, cosine >= 0.995 (benchmarks/RESULTS.md,
  indexing section, ISA capped to AVX2).
- `fp32`: float32 throughout (the reference the others are measured against).
- `auto`: bf16 where it is fast, else int8.

Every path reads the same 4-bit weights and gives the same model_id: an index built with one
is searched with another (the vectors differ by less than the 4-bit weights do from the
original model)."""

from __future__ import annotations

from collections.abc import Callable

from mithub.errors import ConfigError

PRECISIONS = ("auto", "bf16", "int8", "fp32")
SETTING = "RETRIEVAL_E5_PRECISION"
INT8_KEEPS_FLOAT = ("fo",)  # e5_torch's name of the FFN output product


def bf16_is_fast() -> bool:
    """True when the CPU multiplies bfloat16 in hardware and torch may use it: the units
    exist (AMX or AVX512-BF16) and torch's kernels are not capped below AVX512
    (ATEN_CPU_CAPABILITY=avx2 stands a CPU in for one without them)."""
    import torch

    checks = ("_is_amx_tile_supported", "_is_avx512_bf16_supported")
    has_units = any(getattr(torch.cpu, name, lambda: False)() for name in checks)
    return has_units and torch.backends.cpu.get_cpu_capability().startswith("AVX512")


def choose_precision(setting: str, bf16_fast: bool) -> str:
    """The path that runs (`bf16`, `int8` or `fp32`) for a RETRIEVAL_E5_PRECISION value."""
    if setting not in PRECISIONS:
        raise ConfigError(f"{SETTING}={setting!r} is not a precision; set it to one of {', '.join(PRECISIONS)}")
    if setting == "auto":
        return "bf16" if bf16_fast else "int8"
    return setting


def product_precision(precision: str, product: str) -> str:
    """The precision one Linear product of a layer runs in."""
    return "fp32" if precision == "int8" and product in INT8_KEEPS_FLOAT else precision


def linear(weight, bias, precision: str) -> Callable:  # noqa: ANN001 - torch tensors
    """x -> x @ weight.T + bias in the chosen precision, the weight prepared once here."""
    import torch

    functional = torch.nn.functional
    if precision != "int8":
        dtype = torch.bfloat16 if precision == "bf16" else torch.float32
        weight, bias = weight.to(dtype), bias.to(dtype)
        return lambda x: functional.linear(x, weight, bias)
    packed = _int8_packed(weight, bias)
    # reduce_range=False: oneDNN keeps all 8 bits of the activations (fbgemm's AVX2 kernels
    # need 7 and lost accuracy: cosine to fp32 0.976 against 0.992 in the worst text)
    return lambda x: torch.ops.quantized.linear_dynamic(x, packed, False)


def _int8_packed(weight, bias):  # noqa: ANN001, ANN202 - torch tensors and packed params
    import warnings

    import torch

    scales = (weight.abs().amax(1) / 127).clamp_min(1e-12).double()
    zero_points = torch.zeros(len(weight), dtype=torch.long)
    engine = torch.backends.quantized.engine
    try:
        torch.backends.quantized.engine = "onednn"  # the packed weight keeps its engine
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # quantized tensor creation is flagged as deprecated
            quantized = torch.quantize_per_channel(weight.float(), scales, zero_points, 0, torch.qint8)
        return torch.ops.quantized.linear_prepack(quantized, bias.float())
    finally:
        torch.backends.quantized.engine = engine
