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
        """A progress bar with a known total, so tqdm shows rate and ETA; none when stderr is
        not a terminal (a log file would get every redraw, escape codes and all)."""
        return tqdm(total=total, desc=label, unit=unit, disable=None if self.progress else True,
                    dynamic_ncols=True)

    @property
    def total_seconds(self) -> float:
        """Wall time from the profile's start to the end of its last stage (stages that ran
        side by side are not added up)."""
        return self._ended - self._started

    def seconds_of(self, name: str) -> float:
        return sum(s.seconds for s in self.stages if s.name == name)

    def summary(self) -> str:
        """A plain table: stage, seconds, items, items/s, share of the stage time (the shares
        add up to 100%; stages that ran side by side make the wall time shorter than their sum,
        which the last line says)."""
        busy = sum(s.seconds for s in self.stages)
        lines = [f"{'stage':<18} {'seconds':>9} {'items':>9} {'unit':<10} {'items/s':>9} {'share':>6}"]
        for s in self.stages:
            share = s.seconds / busy if busy > 0 else 0.0
            lines.append(
                f"{s.name:<18} {s.seconds:>9.1f} {s.items:>9} {s.unit:<10} {rate_text(s.rate):>9} {share:>6.0%}"
            )
        overlap = f" (stages overlapped: {busy:.1f} s of stage time)" if busy > self.total_seconds * 1.05 else ""
        lines.append(f"{'total (wall)':<18} {self.total_seconds:>9.1f}{overlap}")
        return "\n".join(lines)


def rate_text(rate: float) -> str:
    """A rate with the digits that matter: 18608, 41.4, 0.5, 0.012 (never "0.0"); "-" for none."""
    if rate <= 0:
        return "-"
    if rate >= 100:
        return f"{rate:.0f}"
    if rate >= 0.1:
        return f"{rate:.1f}"
    return f"{rate:.2g}"


def per_second(items: int, seconds: float, unit: str) -> str:
    """"41.4 documents/s", or "12.0 s per document" when there is less than one a second."""
    if items <= 0 or seconds <= 0:
        return f"no {unit}"
    rate = items / seconds
    return f"{rate_text(rate)} {unit}/s" if rate >= 1 else f"{seconds / items:.1f} s per {unit.rstrip('s')}"
