"""Delivering the minutes to the team's tools by webhook (issue 20 part 3).

When a meeting ends, `close_minutes` stores its minutes and calls `enqueue_delivery`: with
MINUTES_WEBHOOK_URL set, the body (MINUTES_WEBHOOK_FORMAT: json, slack or teams, see
`minutes.payloads`) is stored as a pending row of `minutes_deliveries` first, then the
process's `DeliveryRunner` sends it in the background. The meeting's end never waits for the
receiver, and a receiver that is down loses nothing: the row stays pending and is retried with
exponential backoff and jitter (MINUTES_WEBHOOK_BACKOFF_SECONDS doubled per failure, up to
MINUTES_WEBHOOK_BACKOFF_MAX_SECONDS, never before a 429/503's Retry-After) on connection
errors, timeouts, 5xx and 429, until MINUTES_WEBHOOK_MAX_ATTEMPTS, then `failed`. Any other
answer (4xx, a redirect) fails at once. Every attempt is stored on the row (`attempt_log`).

Processes: the worker and `mithub api` start a runner (`start_delivery`) that resumes the
pending deliveries of their database at once and then looks again every
MINUTES_WEBHOOK_POLL_SECONDS (deliveries other processes enqueued); at shutdown they wait at
most MINUTES_WEBHOOK_SHUTDOWN_WAIT_SECONDS and leave the rest pending. A short-lived process
(`mithub replay`) gets a runner on its first enqueue; `close_deliveries()` before it exits
gives that runner the same bounded wait. `mithub minutes deliver` sends every pending
delivery now, once. Delivery is at least once: a receiver deduplicates on X-MitHub-Delivery.

What a receiver gets (every attempt):

    POST <MINUTES_WEBHOOK_URL>
    Content-Type: application/json; charset=utf-8
    X-MitHub-Event: minutes
    X-MitHub-Delivery: <delivery id, the same on every retry>
    X-MitHub-Attempt: <1, 2, ...>
    X-MitHub-Format: json | slack | teams
    X-MitHub-Timestamp: <Unix seconds of this attempt>               (with a secret)
    X-MitHub-Signature: sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>

To verify: take the raw body bytes as received, compute
`hmac.new(secret, f"{timestamp}.".encode() + body, sha256).hexdigest()`, compare it with the
header in constant time, and refuse a timestamp more than 5 minutes from your clock (a replay).
`mithub.minutes.signing.verify_signature` does exactly this. Neither the secret nor the URL
(a Slack or Teams URL holds its token) is ever logged: log lines name the host only.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import httpx
import structlog

from mithub.clock import Clock, utc_now
from mithub.config import MinutesWebhookConfig, get_minutes_webhook_config, get_public_config
from mithub.minutes.models import Minutes
from mithub.minutes.payloads import payload_body
from mithub.minutes.webhook import PostResult, backoff_seconds, hide_url, post_delivery, redact, webhook_host
from mithub.observability import record_delivery_attempt, record_pending_deliveries
from mithub.store.database import Database, create_database
from mithub.store.deliveries import Delivery, DeliveryAttempt, SqlDeliveryStore

logger = structlog.get_logger(__name__)

CLAIM_MARGIN_SECONDS = 30.0  # a claim outlives the POST's time limit by this much
FAILED_PASS_WAIT_SECONDS = 5.0  # the store was unreachable: look again this soon
STOP_SECONDS = 0.5  # at shutdown, after the bounded wait: time for the loop to see it should stop


@dataclass
class DeliveryRunner:
    """Sends the pending deliveries of one database, one at a time, in a background task.
    `owns_database`: the runner disposes it when it stops (the engine it opened for itself)."""

    database: Database
    config: MinutesWebhookConfig = field(default_factory=get_minutes_webhook_config)
    clock: Clock = utc_now
    rng: Callable[[], float] = random.random
    owns_database: bool = False

    def __post_init__(self) -> None:
        self.store = SqlDeliveryStore(self.database)
        self._client = httpx.AsyncClient(timeout=self.config.timeout_seconds, follow_redirects=False)
        self._wakeup = asyncio.Event()
        self._idle = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> DeliveryRunner:
        """Resume the pending deliveries now, then send new ones as they are enqueued."""
        self._loop = asyncio.get_running_loop()
        self._task = self._loop.create_task(self._run(), name="mithub-minutes-delivery")
        return self

    @property
    def running(self) -> bool:
        return (self._task is not None and not self._task.done() and self._loop is not None
                and not self._loop.is_closed() and not self._stopping)

    def wake(self) -> None:
        """Look for due deliveries now (safe from any thread: a worker's meetings run in theirs)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            same = asyncio.get_running_loop() is loop
        except RuntimeError:
            same = False
        if same:
            self._idle.clear()
            self._wakeup.set()
        else:
            loop.call_soon_threadsafe(self._idle.clear)
            loop.call_soon_threadsafe(self._wakeup.set)

    async def aclose(self, timeout: float | None = None) -> None:
        """Wait at most `timeout` (MINUTES_WEBHOOK_SHUTDOWN_WAIT_SECONDS) for the deliveries due
        now, then stop; whatever was not delivered stays pending for the next start."""
        wait = self.config.shutdown_wait_seconds if timeout is None else timeout
        if self._task is not None and not self._task.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._idle.wait(), wait)
            self._stopping = True
            self._wakeup.set()
            done, _ = await asyncio.wait({self._task}, timeout=STOP_SECONDS)
            if not done:  # an attempt still under way: its delivery stays pending (claimed until it lapses)
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)
        self._stopping = True
        await self._release()
        _forget(self)

    async def _release(self) -> None:
        await self._client.aclose()
        if self.owns_database:
            await self.database.dispose()

    # ------------------------------------------------------------------ sending

    async def _run(self) -> None:
        try:
            while not self._stopping:
                self._wakeup.clear()
                try:
                    await self.run_due()
                    wait = await self._seconds_to_next()
                except Exception as exc:  # noqa: BLE001 - e.g. the store is down: the rows wait for it
                    # redact: a database error quotes its statement's parameters, the URL among them
                    logger.warning("minutes_delivery_pass_failed", error=redact(f"{type(exc).__name__}: {exc}"))
                    wait = min(FAILED_PASS_WAIT_SECONDS, self.config.poll_seconds)
                if not self._wakeup.is_set():
                    self._idle.set()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wakeup.wait(), wait)
        finally:  # also when the process's event loop ends and cancels it (a replay exits)
            self._idle.set()
            await self._release()

    async def run_due(self, *, due_only: bool = True) -> list[Delivery]:
        """Attempt every delivery due now (or, not `due_only`, every pending one, once each),
        one at a time; returns them as they stand after their attempt."""
        done: list[Delivery] = []
        while not self._stopping:
            now = self.clock()
            until = now + timedelta(seconds=self.config.timeout_seconds + CLAIM_MARGIN_SECONDS)
            claimed = await self.store.claim(now, until=until, limit=1, due_only=due_only,
                                             exclude={d.id for d in done})
            if not claimed:
                break
            done.append(await self._attempt(claimed[0]))
        await self._count_pending()
        return done

    async def _attempt(self, delivery: Delivery) -> Delivery:
        number = delivery.attempts + 1
        at = self.clock()
        result = await post_delivery(self._client, delivery, attempt=number,
                                     secret=self.config.secret.get_secret_value())
        outcome = result.outcome
        if outcome == "retry" and number >= self.config.max_attempts:
            outcome = "failed"
        next_at = at + timedelta(seconds=backoff_seconds(number, self.config, retry_after=result.retry_after,
                                                         rng=self.rng)) if outcome == "retry" else at
        attempt = DeliveryAttempt(at=at, outcome=outcome, status_code=result.status_code, error=result.error,
                                  seconds=round(result.seconds, 4))
        status = {"delivered": "delivered", "retry": "pending", "failed": "failed"}[outcome]
        updated = await self.store.record_attempt(delivery, attempt, status=status, next_attempt_at=next_at)
        record_delivery_attempt(outcome)
        _log_attempt(updated, result, outcome, next_at - at)
        return updated

    async def _seconds_to_next(self) -> float:
        due = await self.store.next_due()
        if due is None:
            return self.config.poll_seconds
        return min(max((due - self.clock()).total_seconds(), 0.0), self.config.poll_seconds)

    async def _count_pending(self) -> None:
        record_pending_deliveries((await self.store.counts())["pending"])


def _log_attempt(delivery: Delivery, result: PostResult, outcome: str, wait: timedelta) -> None:
    fields = {"delivery_id": delivery.id, "meeting_id": delivery.meeting_id, "host": webhook_host(delivery.url),
              "format": delivery.format, "attempt": delivery.attempts, "status_code": result.status_code}
    if outcome == "delivered":
        logger.info("minutes_delivered", **fields)
    elif outcome == "retry":
        logger.warning("minutes_delivery_retry", **fields, error=result.error,
                       next_in_seconds=round(wait.total_seconds(), 3))
    else:
        logger.error("minutes_delivery_failed", **fields, error=result.error)


# ---------------------------------------------------------------------- one runner per database and process

_runners: dict[str, DeliveryRunner] = {}
_runners_lock = threading.Lock()


def _key(database: Database) -> str:
    return database.url.render_as_string(hide_password=False)


def _forget(runner: DeliveryRunner) -> None:
    with _runners_lock:
        key = _key(runner.database)
        if _runners.get(key) is runner:
            del _runners[key]


def start_delivery(database: Database, config: MinutesWebhookConfig | None = None) -> DeliveryRunner | None:
    """The runner of a long-lived process (worker, API): it resumes the pending deliveries of
    `database` at once. None when MINUTES_WEBHOOK_URL is not set."""
    config = config or get_minutes_webhook_config()
    if not config.enabled:
        return None
    hide_url(config.url.get_secret_value().strip())
    runner = DeliveryRunner(database, config).start()
    with _runners_lock:
        _runners[_key(database)] = runner
    logger.info("minutes_delivery_started", host=webhook_host(config.url.get_secret_value()), format=config.format)
    return runner


@asynccontextmanager
async def delivering(database: Database | None = None, *, database_url: str | None = None,
                     config: MinutesWebhookConfig | None = None) -> AsyncIterator[DeliveryRunner | None]:
    """A long-lived process's deliveries, for as long as the block runs: `database` (or one
    opened on `database_url`, else DATABASE_URL) resumed at once, the bounded wait at the end.
    A store that cannot be opened is logged, not raised: the process starts anyway, and its
    meetings' deliveries stay pending for the next start or `mithub minutes deliver`."""
    config = config or get_minutes_webhook_config()
    if not config.enabled:
        yield None
        return
    owned = database is None
    if database is None:
        from mithub.store.open import open_database

        try:
            database = await open_database(database_url)
        except Exception as exc:  # noqa: BLE001 - deliveries wait in the store
            logger.warning("minutes_delivery_not_started", error=f"{type(exc).__name__}: {exc}")
    if database is None:
        yield None
        return
    runner = start_delivery(database, config)
    try:
        yield runner
    finally:
        if runner is not None:
            await runner.aclose()
        if owned:
            await database.dispose()


def _runner_for(database: Database, config: MinutesWebhookConfig) -> DeliveryRunner:
    """This process's runner for `database`; a process without one (a replay) starts it here,
    over an engine of its own: the meeting's is disposed when the meeting is left, and the
    runner disposes its own however its event loop ends (no connection outlives it)."""
    with _runners_lock:
        runner = _runners.get(_key(database))
        if runner is None or not runner.running:
            own = create_database(_key(database))
            runner = _runners[_key(database)] = DeliveryRunner(own, config, owns_database=True).start()
        return runner


async def close_deliveries(timeout: float | None = None) -> None:
    """Before a process exits: give the runners started on this event loop their bounded wait."""
    loop = asyncio.get_running_loop()
    with _runners_lock:
        mine = [r for r in _runners.values() if r._loop is loop]
    await asyncio.gather(*(r.aclose(timeout) for r in mine))


# ---------------------------------------------------------------------- entry points


async def enqueue_delivery(store: object, minutes: Minutes, *, config: MinutesWebhookConfig | None = None,
                           clock: Clock = utc_now) -> Delivery | None:
    """Store the delivery of `minutes` (pending) and wake this process's runner; returns at once,
    and never raises (the minutes are stored already; a failure here is logged). None when no
    webhook is set, or the store is in memory (nothing would survive to retry)."""
    config = config or get_minutes_webhook_config()
    if not config.enabled:
        return None
    database = _database_of(store)
    if database is None:
        logger.info("minutes_delivery_skipped", meeting_id=minutes.meeting_id, reason="in-memory store")
        return None
    try:
        return await _enqueue(database, minutes, config, clock())
    except Exception as exc:  # noqa: BLE001 - the meeting ends anyway; its minutes are stored
        logger.error("minutes_delivery_not_enqueued", meeting_id=minutes.meeting_id,
                     error=redact(f"{type(exc).__name__}: {exc}"))
        return None


async def _enqueue(database: Database, minutes: Minutes, config: MinutesWebhookConfig, now: datetime
                   ) -> Delivery:
    url = config.url.get_secret_value().strip()
    hide_url(url)
    body = payload_body(minutes, config.format, page_url=get_public_config().meeting_page(minutes.meeting_id))
    delivery = await SqlDeliveryStore(database).add(minutes.meeting_id, url=url, format=config.format,
                                                    body=body, now=now)
    logger.info("minutes_delivery_enqueued", delivery_id=delivery.id, meeting_id=minutes.meeting_id,
                host=webhook_host(url), format=config.format, bytes=len(body))
    _runner_for(database, config).wake()
    return delivery


def _database_of(store: object) -> Database | None:
    """The SQL store behind a repository (the resilient wrapper keeps it as `inner`)."""
    for candidate in (store, getattr(store, "inner", None)):
        database = getattr(candidate, "database", None)
        if isinstance(database, Database):
            return database
    return None


@dataclass(frozen=True)
class DeliveryReport:
    attempted: list[Delivery]
    counts: dict[str, int]


async def deliver_pending(database: Database, config: MinutesWebhookConfig | None = None) -> DeliveryReport:
    """`mithub minutes deliver`: attempt every pending delivery once, now (backoff or not)."""
    runner = DeliveryRunner(database, config or get_minutes_webhook_config())
    try:
        attempted = await runner.run_due(due_only=False)
    finally:
        await runner.aclose(0)
    return DeliveryReport(attempted, await runner.store.counts())
