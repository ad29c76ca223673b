"""Retrain the record's fitted models by one command each (only training reads ../shared; the
weights ship in `mithub/record/weights/`):

    python -m mithub.record.training decisions --data ../shared/benchmarks/data
    python -m mithub.record.training actions --data ../shared/benchmarks/data

Each model's own module does the work and writes its model card beside its weights.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

COMMANDS = {"decisions": "mithub.record.training_decisions", "actions": "mithub.record.action_training"}


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in COMMANDS:
        sys.exit(f"usage: python -m mithub.record.training {{{'|'.join(COMMANDS)}}} --data ../shared/benchmarks/data")
    module = importlib.import_module(COMMANDS[args[0]])
    if not hasattr(module, "main"):
        sys.exit(f"{COMMANDS[args[0]]} has no main(argv) yet")
    module.main(args[1:])


if __name__ == "__main__":
    main()
