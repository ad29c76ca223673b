"""Line-oriented JSON input shared by every command that reads files: a malformed line is
reported with its file and line number and skipped; the rest is processed."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from mithub.errors import InputError

M = TypeVar("M", bound=BaseModel)


@dataclass
class LineErrors:
    """Collects skipped lines; `report` is called for each as it happens (CLI prints it)."""

    report: Callable[[InputError], None] | None = None
    errors: list[InputError] = field(default_factory=list)

    def add(self, error: InputError) -> None:
        self.errors.append(error)
        if self.report is not None:
            self.report(error)

    def __len__(self) -> int:
        return len(self.errors)


def _describe(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "line"
    return f"{where}: {first['msg']}"


def iter_json_lines(path: Path, errors: LineErrors) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every line holding a JSON object; blank lines are ignored."""
    if not path.is_file():
        raise InputError("file not found; check the path", source=path)
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except json.JSONDecodeError as exc:
                errors.add(InputError(f"not valid JSON ({exc.msg}); line skipped", source=path, line=number))
                continue
            if not isinstance(value, dict):
                errors.add(InputError("expected a JSON object; line skipped", source=path, line=number))
                continue
            yield number, value


def iter_models(path: Path, model: type[M], errors: LineErrors) -> Iterator[tuple[int, M]]:
    """Like `iter_json_lines`, validated into `model`; invalid lines are reported and skipped."""
    for number, value in iter_json_lines(path, errors):
        try:
            yield number, model.model_validate(value)
        except ValidationError as exc:
            errors.add(InputError(f"{_describe(exc)}; line skipped", source=path, line=number))


def nothing_read(errors: LineErrors, what: str, *,
                 empty: str = "the file is empty or holds only blank lines") -> str:
    """Why an input gave nothing to work on, for the one-line error: an empty file is not
    "see the warnings above" when no warning was printed."""
    if not errors:
        return f"no {what}: {empty}"
    return f"no valid {what}: every one of the {len(errors)} line(s) read was skipped (reported above)"
