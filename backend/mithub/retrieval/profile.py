"""Where an index build spends its time: one timing per stage (seconds, items, items/s),
progress bars with an ETA while a stage runs, and the summary `mithub index build` prints."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from pydantic import BaseModel
from tqdm import tqdm


class StageTiming(BaseModel):
    """One build stage, as stored in the index's meta.json and printed after a build."""

    name: str
    seconds: float
    items: int
    unit: str

    @property
    def rate(self) -> float:
        return self.items / self.seconds if self.seconds > 0 else 0.0


class Stage:
    """A running stage: the caller sets `items` (what the rate is counted in)."""

    def __init__(self, name: str, unit: str, items: int = 0) -> None:
        self.name = name
        self.unit = unit
        self.items = items


class BuildProfile:
    def __init__(self, progress: bool = True) -> None:
        self.progress = progress
        self.stages: list[StageTiming] = []
        self._started = time.perf_counter()
        self._ended = self._started
        self._lock = threading.Lock()  # stages may run in two threads

    @contextmanager
    def stage(self, name: str, unit: str, items: int = 0) -> Iterator[Stage]:
        """Time a stage; repeated names (a build done in parts) add up."""
        running = Stage(name, unit, items)
        started = time.perf_counter()
        try:
            yield running
        finally:
            ended = time.perf_counter()
            with self._lock:
                self._ended = max(self._ended, ended)
                self._record(StageTiming(name=name, seconds=ended - started, items=running.items, unit=unit))

    def _record(self, timing: StageTiming) -> None:
        for i, known in enumerate(self.stages):
            if known.name == timing.name:
                self.stages[i] = StageTiming(name=timing.name, seconds=known.seconds + timing.seconds,
                                             items=known.items + timing.items, unit=timing.unit)
                return
        self.stages.append(timing)

    def bar(self, label: str, total: int, unit: str) -> tqdm:
        """A progress bar with a known total, so tqdm shows rate and ETA."""
        return tqdm(total=total, desc=label, unit=unit, disable=not self.progress, dynamic_ncols=True)

    @property
    def total_seconds(self) -> float:
        """Wall time from the profile's start to the end of its last stage (stages that ran
        side by side are not added up)."""
        return self._ended - self._started

    def seconds_of(self, name: str) -> float:
        return sum(s.seconds for s in self.stages if s.name == name)

    def summary(self) -> str:
        """A plain table: stage, seconds, items, items/s, share of the build's wall time
        (shares add up to more than 100% when stages overlapped)."""
        total = self.total_seconds or 1.0
        lines = [f"{'stage':<18} {'seconds':>9} {'items':>9} {'unit':<10} {'items/s':>9} {'share':>6}"]
        for s in self.stages:
            lines.append(
                f"{s.name:<18} {s.seconds:>9.1f} {s.items:>9} {s.unit:<10} {s.rate:>9.1f} {s.seconds / total:>6.0%}"
            )
        lines.append(f"{'total':<18} {self.total_seconds:>9.1f}")
        return "\n".join(lines)
