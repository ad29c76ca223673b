"""More two-meeting series in the benchmark's format (e.g. the project's own
`benchmarks/data/series`), given to a training command with `--extra`: each root is checked
once, so a typo or an empty folder is an error naming it rather than a result without them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def extra_series_roots(roots: Sequence[Path], marker: str) -> list[Path]:
    """`roots`, each a folder holding `<series>/<marker>` (gold.json, actions.json, topics.json);
    raises FileNotFoundError naming the first that does not."""
    for root in roots:
        if not root.is_dir():
            raise FileNotFoundError(f"extra series folder not found: {root} (give --extra a folder of "
                                    f"<series>/{marker}, e.g. benchmarks/data/series)")
        if not any(root.glob(f"*/{marker}")):
            raise FileNotFoundError(f"extra series folder {root} holds no <series>/{marker}")
    return list(roots)
