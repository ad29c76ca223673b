"""Circuit breaker for the LLM server: after `failure_threshold` consecutive failures it opens
and calls fail fast (the caller falls back at once instead of waiting for timeouts); after
`reset_seconds` one trial call is let through (half-open) and its outcome closes or reopens it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

import structlog

logger = structlog.get_logger(__name__)

BreakerState = Literal["closed", "open", "half_open"]


class CircuitBreaker:
    def __init__(
        self,
        failure_threshold: int = 3,
        reset_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failure_threshold = failure_threshold
        self.reset_seconds = reset_seconds
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_in_flight = False

    @property
    def state(self) -> BreakerState:
        if self._opened_at is None:
            return "closed"
        if self._clock() - self._opened_at >= self.reset_seconds:
            return "half_open"
        return "open"

    def allow(self) -> bool:
        """Whether a call may go to the server now."""
        state = self.state
        if state == "closed":
            return True
        if state == "half_open" and not self._trial_in_flight:
            self._trial_in_flight = True
            return True
        return False

    def allow_probe(self) -> bool:
        """Whether an auxiliary request (a token count) may go out: only while closed, so it
        never uses up the half-open trial."""
        return self.state == "closed"

    def record_success(self) -> None:
        if self._opened_at is not None:
            logger.info("llm_circuit_closed")
        self._failures = 0
        self._opened_at = None
        self._trial_in_flight = False

    def record_failure(self) -> None:
        self._failures += 1
        self._trial_in_flight = False
        if self._opened_at is not None or self._failures >= self.failure_threshold:
            if self._opened_at is None or self.state == "half_open":
                logger.warning("llm_circuit_opened", failures=self._failures,
                               retry_after_s=self.reset_seconds)
            self._opened_at = self._clock()
