"""Delivering the minutes by webhook, against a real HTTP receiver on 127.0.0.1: the signature
checks out with the secret, a receiver that is down or answers 503 is retried with backoff and
gets the minutes once it is up, a 4xx gives up at once, a restarted process resumes what is
pending, and the meeting's end never waits for the receiver. Stores are SQLite files, and the
retry test runs on PostgreSQL too."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime, timedelta, timezone

import pytest
from mithub_databases import subprocess_env
from pydantic import SecretStr
from webhook_receiver import HangingReceiver, WebhookReceiver

from mithub.config import MinutesWebhookConfig
from mithub.minutes.delivery import close_deliveries, enqueue_delivery, start_delivery
from mithub.minutes.models import Minutes, MinutesActionItem, MinutesDecision, MinutesParticipant
from mithub.minutes.signing import verify_signature
from mithub.store.database import Database
from mithub.store.deliveries import Delivery, SqlDeliveryStore
from mithub.store.open import open_database
from mithub.store.sql import SqlRepository

SECRET = "whsec-do-not-log-7f3a9c"
KST = timezone(timedelta(hours=9))
START = datetime(2026, 5, 11, 10, 0, tzinfo=KST)


def webhook(url: str, **overrides: object) -> MinutesWebhookConfig:
    """Settings with tiny backoffs, so retries happen within a test."""
    values = {"url": SecretStr(url), "secret": SecretStr(SECRET), "format": "json", "max_attempts": 10,
              "backoff_seconds": 0.05, "backoff_max_seconds": 0.4, "timeout_seconds": 2.0,
              "shutdown_wait_seconds": 0.5, "poll_seconds": 0.5}
    return MinutesWebhookConfig(**{**values, **overrides})


def sample_minutes(meeting_id: str = "m-1") -> Minutes:
    return Minutes(
        meeting_id=meeting_id, series_id="planning", title="제품 기획 <주간>", date=START.date(),
        started_at=START, ended_at=START + timedelta(minutes=13), timezone="+09:00", language="ko",
        participants=[MinutesParticipant(name="김지현", talk_seconds=300, turns=20)],
        decisions=[MinutesDecision(text="서버: 3대", value="3대", quote="3대로 가죠", speaker="김지현",
                                   time=START + timedelta(minutes=5), seq=12)],
        action_items=[MinutesActionItem(task="견적 받아 발주 품의 올리기", owner="박서준", due=START.date(),
                                        speaker="김지현", time=START + timedelta(minutes=9), seq=30)],
        composed_at=START + timedelta(minutes=14))


@pytest.fixture
async def sqlite_database(tmp_path) -> AsyncIterator[Database]:
    database = await open_database(f"sqlite+aiosqlite:///{tmp_path / 'mithub.db'}")
    yield database
    await database.dispose()


async def add_meeting(database: Database, meeting_id: str = "m-1") -> None:
    await SqlRepository(database).ensure_meeting(meeting_id, title="기획", series_id="planning", started_at=START)


async def until(condition: Callable[[], Awaitable[bool]], timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await condition():
            return True
        await asyncio.sleep(0.02)
    return await condition()


async def status_of(database: Database, delivery: Delivery) -> Delivery:
    found = await SqlDeliveryStore(database).get(delivery.id)
    assert found is not None
    return found


async def enqueue(database: Database, config: MinutesWebhookConfig, minutes: Minutes | None = None) -> Delivery:
    delivery = await enqueue_delivery(SqlRepository(database), minutes or sample_minutes(), config=config)
    assert delivery is not None
    return delivery


# ---------------------------------------------------------------------- signing and the body


async def test_the_signature_checks_out_with_the_secret(sqlite_database) -> None:
    await add_meeting(sqlite_database)
    minutes = sample_minutes()
    with WebhookReceiver() as receiver:
        config = webhook(receiver.url)
        delivery = await enqueue(sqlite_database, config, minutes)
        assert await until(lambda: _delivered(sqlite_database, delivery))
        await close_deliveries(0.5)
    [request] = receiver.requests
    timestamp, signature = request.headers["X-MitHub-Timestamp"], request.headers["X-MitHub-Signature"]
    expected = hmac.new(SECRET.encode(), timestamp.encode() + b"." + request.body, hashlib.sha256).hexdigest()
    assert signature == f"sha256={expected}"
    assert abs(int(timestamp) - time.time()) < 60
    assert verify_signature(SECRET, request.body, timestamp, signature)
    assert not verify_signature("another secret", request.body, timestamp, signature)
    assert not verify_signature(SECRET, request.body + b" ", timestamp, signature)
    assert not verify_signature(SECRET, request.body, timestamp, signature, now=int(timestamp) + 301)  # a replay
    assert json.loads(request.body) == minutes.model_dump(mode="json")  # the minutes JSON as is
    assert request.headers["X-MitHub-Delivery"] == delivery.id and request.headers["X-MitHub-Attempt"] == "1"
    assert request.headers["Content-Type"] == "application/json; charset=utf-8"


async def test_without_a_secret_nothing_is_signed(sqlite_database) -> None:
    await add_meeting(sqlite_database)
    with WebhookReceiver() as receiver:
        delivery = await enqueue(sqlite_database, webhook(receiver.url, secret=SecretStr("")))
        assert await until(lambda: _delivered(sqlite_database, delivery))
        await close_deliveries(0.5)
    assert "X-MitHub-Signature" not in receiver.requests[0].headers


async def _delivered(database: Database, delivery: Delivery) -> bool:
    return (await status_of(database, delivery)).status == "delivered"


# ---------------------------------------------------------------------- retries


async def test_a_receiver_that_is_down_is_retried_with_backoff_until_it_is_up(new_database_url) -> None:
    """On SQLite and PostgreSQL (`new_database_url` is parametrized over both)."""
    database = await open_database(new_database_url())
    try:
        await add_meeting(database)
        receiver = WebhookReceiver(port=WebhookReceiver.closed_port())
        runner = start_delivery(database, webhook(receiver.url))
        assert runner is not None
        delivery = await enqueue(database, webhook(receiver.url))
        assert await until(lambda: _attempted(database, delivery, 3))
        down = await status_of(database, delivery)
        assert down.status == "pending" and "Connect" in (down.last_error or "")
        with receiver:  # back up on the same port
            assert await until(lambda: _delivered(database, delivery))
            await runner.aclose()
        done = await status_of(database, delivery)
        outcomes = [a.outcome for a in done.attempt_log]
        assert outcomes[-1] == "delivered" and set(outcomes[:-1]) == {"retry"} and done.attempts == len(outcomes)
        assert done.delivered_at is not None and len(receiver.requests) == 1
        # Backoff: each wait at least half of base x 2^(n-1) (jitter), so the gaps grow.
        times = [a.at for a in done.attempt_log]
        for n, (before, after) in enumerate(zip(times, times[1:]), start=1):
            assert (after - before).total_seconds() >= 0.5 * min(0.05 * 2 ** (n - 1), 0.4) - 0.01
    finally:
        await database.dispose()


async def _attempted(database: Database, delivery: Delivery, attempts: int) -> bool:
    return (await status_of(database, delivery)).attempts >= attempts


async def test_503_is_retried_and_retry_after_is_respected(sqlite_database) -> None:
    await add_meeting(sqlite_database)
    with WebhookReceiver(statuses=[(503, {"Retry-After": "1"}), 503]) as receiver:
        delivery = await enqueue(sqlite_database, webhook(receiver.url))
        assert await until(lambda: _delivered(sqlite_database, delivery))
        await close_deliveries(0.5)
    done = await status_of(sqlite_database, delivery)
    assert [(a.outcome, a.status_code) for a in done.attempt_log] == [("retry", 503), ("retry", 503),
                                                                     ("delivered", 200)]
    first, second = receiver.requests[0].at, receiver.requests[1].at
    assert second - first >= 0.95  # Retry-After: 1, though the backoff alone is 0.05 s
    assert [r.headers["X-MitHub-Attempt"] for r in receiver.requests] == ["1", "2", "3"]
    assert len({r.headers["X-MitHub-Delivery"] for r in receiver.requests}) == 1


async def test_a_4xx_fails_at_once_and_the_attempts_stop_at_the_maximum(sqlite_database) -> None:
    from prometheus_client import REGISTRY

    def counted(outcome: str) -> float:
        return REGISTRY.get_sample_value("mithub_minutes_delivery_attempts_total", {"outcome": outcome}) or 0.0

    await add_meeting(sqlite_database)
    failed_before, retry_before = counted("failed"), counted("retry")
    with WebhookReceiver(statuses=[404]) as receiver:
        refused = await enqueue(sqlite_database, webhook(receiver.url))
        assert await until(lambda: _finished(sqlite_database, refused))
        await close_deliveries(0.5)
    refused = await status_of(sqlite_database, refused)
    assert refused.status == "failed" and refused.attempts == 1 and refused.last_error.startswith("HTTP 404")

    down = WebhookReceiver(port=WebhookReceiver.closed_port())
    given_up = await enqueue(sqlite_database, webhook(down.url, max_attempts=3))
    assert await until(lambda: _finished(sqlite_database, given_up))
    await close_deliveries(0.5)
    given_up = await status_of(sqlite_database, given_up)
    assert given_up.status == "failed" and [a.outcome for a in given_up.attempt_log] == ["retry", "retry", "failed"]
    assert counted("failed") - failed_before == 2 and counted("retry") - retry_before == 2
    assert REGISTRY.get_sample_value("mithub_minutes_deliveries_pending") == 0


async def _finished(database: Database, delivery: Delivery) -> bool:
    return (await status_of(database, delivery)).status != "pending"


# ---------------------------------------------------------------------- restarts and the meeting's end


async def test_a_restart_resumes_the_pending_deliveries(tmp_path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'mithub.db'}"
    receiver = WebhookReceiver(port=WebhookReceiver.closed_port())
    first = await open_database(url)
    try:
        await add_meeting(first)
        runner = start_delivery(first, webhook(receiver.url, backoff_seconds=30.0, backoff_max_seconds=60.0))
        delivery = await enqueue(first, webhook(receiver.url))
        assert await until(lambda: _attempted(first, delivery, 1))
        await runner.aclose()  # the process stops: the delivery waits 15-30 s for its next attempt
    finally:
        await first.dispose()
    assert (await _read(url, delivery)).status == "pending"

    with receiver:
        # Another process over the same file: `mithub minutes deliver` sends it now.
        script = ("import asyncio, sys\nfrom mithub.minutes.delivery import deliver_pending\n"
                  "from mithub.store.open import open_database\n"
                  "async def main():\n    db = await open_database(sys.argv[1])\n"
                  "    try:\n        report = await deliver_pending(db)\n    finally:\n        await db.dispose()\n"
                  "    print([d.status for d in report.attempted], report.counts)\n"
                  "asyncio.run(main())\n")
        env = subprocess_env(MINUTES_WEBHOOK_SECRET=SECRET, MINUTES_WEBHOOK_TIMEOUT_SECONDS="5")
        done = subprocess.run([sys.executable, "-c", script, url], env=env, capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 0, done.stderr
    assert "['delivered'] {'pending': 0, 'delivered': 1, 'failed': 0}" in done.stdout
    assert len(receiver.requests) == 1 and receiver.requests[0].headers["X-MitHub-Attempt"] == "2"
    assert json.loads(receiver.requests[0].body)["meeting_id"] == "m-1"


async def test_a_new_runner_resumes_what_is_due_at_once(tmp_path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'mithub.db'}"
    receiver = WebhookReceiver(port=WebhookReceiver.closed_port())
    async with _store(url) as first:
        await add_meeting(first)
        # Stored but never attempted: the process stopped right after the meeting ended.
        delivery = await SqlDeliveryStore(first).add("m-1", url=receiver.url, format="json", body=b"{}",
                                                     now=datetime.now(timezone.utc))
    with receiver:
        async with _store(url) as database:  # the same file, a new engine: a new process
            runner = start_delivery(database, webhook(receiver.url))
            assert await until(lambda: _delivered(database, delivery))
            await runner.aclose()
    assert receiver.requests[0].body == b"{}"


async def test_the_meeting_ends_while_a_hanging_receiver_holds_its_delivery(tmp_path, monkeypatch) -> None:
    from mithub.config import get_minutes_webhook_config
    from mithub.context.models import Utterance
    from mithub.minutes.closing import close_minutes
    from mithub.minutes.compose import compose_minutes

    hanging = HangingReceiver()
    monkeypatch.setenv("MINUTES_WEBHOOK_URL", hanging.url)
    monkeypatch.setenv("MINUTES_WEBHOOK_TIMEOUT_SECONDS", "30")
    get_minutes_webhook_config.cache_clear()
    database = await open_database(f"sqlite+aiosqlite:///{tmp_path / 'mithub.db'}")
    try:
        repository = SqlRepository(database)
        await add_meeting(database)
        lines = ["다음 주 금요일까지 견적 받아 주세요", "네 제가 받아 올게요", "서버는 3대로 가죠"]
        await repository.append_utterances("m-1", [
            Utterance(id=i, speaker_id=f"s{i % 2}", speaker_name=["김지현", "박서준"][i % 2], text=text,
                      start_ms=i * 4000, end_ms=i * 4000 + 3000, absolute_timestamp=START + timedelta(seconds=4 * i))
            for i, text in enumerate(lines, start=1)])
        await compose_minutes(repository, "m-1")  # loads the analysers once: what is timed is the end itself
        started = time.perf_counter()
        minutes = await close_minutes(repository, "m-1")
        elapsed = time.perf_counter() - started
        assert minutes is not None and elapsed < 2.0  # the receiver would hold it for 30 s
        [delivery] = await SqlDeliveryStore(database).for_meeting("m-1")
        assert delivery.status == "pending" and delivery.attempts == 0
        assert await repository.get_minutes("m-1") is not None  # stored before anything was sent
        await asyncio.sleep(0.3)  # the POST is under way, hanging
        started = time.perf_counter()
        await close_deliveries(0.2)  # shutdown: a bounded wait, then it stays pending
        assert time.perf_counter() - started < 2.0
        left = await status_of(database, delivery)
        assert left.status == "pending" and left.next_attempt_at > datetime.now(timezone.utc)
    finally:
        get_minutes_webhook_config.cache_clear()
        hanging.close()
        await database.dispose()


# ---------------------------------------------------------------------- helpers over a store file


def _store(url: str):  # noqa: ANN202 - an async context manager
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def opened() -> AsyncIterator[Database]:
        database = await open_database(url)
        try:
            yield database
        finally:
            await database.dispose()

    return opened()


async def _read(url: str, delivery: Delivery) -> Delivery:
    async with _store(url) as database:
        return await status_of(database, delivery)


# ---------------------------------------------------------------------- settings and logs


async def test_without_a_url_nothing_is_enqueued(sqlite_database) -> None:
    await add_meeting(sqlite_database)
    assert await enqueue_delivery(SqlRepository(sqlite_database), sample_minutes(),
                                  config=MinutesWebhookConfig(url=SecretStr(""))) is None
    assert await SqlDeliveryStore(sqlite_database).for_meeting("m-1") == []


@pytest.fixture
def debug_logs():
    """Log everything (structlog's JSON, httpx's and aiosqlite's lines) to the stderr of the
    moment: call it inside the test, where capsys captures; the logs go quiet afterwards."""
    import logging

    from mithub.observability import configure_logging

    yield lambda: configure_logging(json_logs=True, level="DEBUG")  # httpx logs every request at INFO
    logging.basicConfig(force=True, level=logging.WARNING, handlers=[logging.NullHandler()])


async def test_the_secret_and_the_urls_token_never_reach_the_logs(sqlite_database, debug_logs, capsys) -> None:
    debug_logs()
    await add_meeting(sqlite_database)
    with WebhookReceiver(statuses=[503, 404]) as receiver:
        config = webhook(receiver.url, format="slack")
        retried = await enqueue(sqlite_database, config)
        assert await until(lambda: _finished(sqlite_database, retried))
        delivered = await enqueue(sqlite_database, config)
        assert await until(lambda: _finished(sqlite_database, delivered))
        await close_deliveries(0.5)
    assert (await status_of(sqlite_database, retried)).status == "failed"  # 503, then 404
    assert (await status_of(sqlite_database, delivered)).status == "delivered"
    logged = capsys.readouterr()
    output = logged.out + logged.err
    events = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    names = {e.get("event") for e in events}
    assert {"minutes_delivery_enqueued", "minutes_delivery_retry", "minutes_delivery_failed",
            "minutes_delivered"} <= names
    assert f"127.0.0.1:{receiver.port}" in output and "HTTP Request: POST" in output  # the host is there
    assert SECRET not in output
    assert "s3cr3t-t0ken" not in output and receiver.path not in output


# ---------------------------------------------------------------------- processes that resume deliveries


async def test_mithub_minutes_deliver_sends_the_pending_ones_now(tmp_path, capsys, monkeypatch) -> None:
    from mithub.cli.minutes_deliver import deliver

    url = f"sqlite+aiosqlite:///{tmp_path / 'mithub.db'}"
    monkeypatch.setenv("MINUTES_WEBHOOK_SECRET", SECRET)
    from mithub.config import get_minutes_webhook_config

    get_minutes_webhook_config.cache_clear()
    try:
        up, down = (WebhookReceiver(port=WebhookReceiver.closed_port()) for _ in range(2))
        async with _store(url) as database:
            await add_meeting(database)
            store = SqlDeliveryStore(database)
            later = datetime.now(timezone.utc) + timedelta(hours=1)  # backoff would wait an hour
            waiting = await store.add("m-1", url=up.url, format="json", body=b'{"a":1}', now=later)
            stuck = await store.add("m-1", url=down.url, format="json", body=b'{"b":2}', now=later)
        with up:
            assert await deliver(url) == 1  # one could not be delivered
        out = capsys.readouterr().out
        assert f"{waiting.id} meeting m-1 -> 127.0.0.1:{up.port}: delivered, attempt 1" in out
        assert f"{stuck.id} meeting m-1 -> 127.0.0.1:{down.port}: pending, next attempt" in out
        assert "pending 1 · delivered 1 · failed 0" in out and down.path not in out
        [request] = up.requests
        assert verify_signature(SECRET, request.body, request.headers["X-MitHub-Timestamp"],
                                request.headers["X-MitHub-Signature"])
        assert await deliver(url) == 1 and "attempt 2" in capsys.readouterr().out
    finally:
        get_minutes_webhook_config.cache_clear()


async def test_a_long_lived_process_resumes_deliveries_over_its_own_store(tmp_path) -> None:
    """What the worker does at start (`delivering()` opens DATABASE_URL): a store that cannot be
    opened does not stop it, one that can is resumed at once."""
    from mithub.minutes.delivery import delivering

    url = f"sqlite+aiosqlite:///{tmp_path / 'mithub.db'}"
    with WebhookReceiver() as receiver:
        async with _store(url) as database:
            await add_meeting(database)
            delivery = await SqlDeliveryStore(database).add("m-1", url=receiver.url, format="json", body=b"{}",
                                                            now=datetime.now(timezone.utc))
        async with delivering(database_url="postgresql+asyncpg://nobody@127.0.0.1:9/none",
                              config=webhook(receiver.url)) as runner:
            assert runner is None
        async with delivering(database_url=url, config=webhook(receiver.url)) as runner:
            assert runner is not None
            assert await until(lambda: _delivered(runner.database, delivery))
        assert len(receiver.requests) == 1


@pytest.mark.slow
async def test_mithub_api_resumes_pending_deliveries_at_start(tmp_path) -> None:
    import os

    url = f"sqlite+aiosqlite:///{tmp_path / 'mithub.db'}"
    receiver = WebhookReceiver(port=WebhookReceiver.closed_port())
    async with _store(url) as database:
        await add_meeting(database)
        delivery = await SqlDeliveryStore(database).add("m-1", url=receiver.url, format="json", body=b'{"m":1}',
                                                        now=datetime.now(timezone.utc))
    env = {**subprocess_env(), "API_TOKEN": "t" * 40, "LLM_BASE_URL": "", "MINUTES_WEBHOOK_URL": receiver.url,
           "MINUTES_WEBHOOK_SECRET": SECRET, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    with receiver:
        process = subprocess.Popen([sys.executable, "-m", "mithub.cli", "api", "--port", "0", "--database-url", url],
                                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            assert await until(lambda: _delivered_in(url, delivery), timeout=240)
        finally:
            process.terminate()
            _out, err = process.communicate(timeout=60)
    assert len(receiver.requests) == 1 and receiver.requests[0].body == b'{"m":1}'
    assert SECRET not in err and receiver.path not in err


async def _delivered_in(url: str, delivery: Delivery) -> bool:
    return (await _read(url, delivery)).status == "delivered"


@pytest.mark.slow
async def test_a_replay_ends_and_exits_while_the_receiver_hangs(tmp_path) -> None:
    """`mithub replay` ends its meeting (record, minutes, delivery stored) and its process exits
    with the receiver holding the POST: the delivery stays pending for the next start."""
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "examples" / "meetings" / "ko_product_planning_3.jsonl"
    url = f"sqlite+aiosqlite:///{tmp_path / 'mithub.db'}"
    hanging = HangingReceiver()
    env = {**subprocess_env(), "LLM_BASE_URL": "", "MINUTES_WEBHOOK_URL": hanging.url,
           "MINUTES_WEBHOOK_TIMEOUT_SECONDS": "60"}
    try:
        started = time.perf_counter()
        done = await asyncio.to_thread(subprocess.run, [
            sys.executable, "-m", "mithub.cli", "replay", str(example), "--meeting-id", "short", "--database-url", url,
            "--no-progress", "--json"], env=env, capture_output=True, text=True, timeout=300)
        elapsed = time.perf_counter() - started
    finally:
        hanging.close()
    assert done.returncode == 0, done.stderr
    async with _store(url) as database:
        [delivery] = await SqlDeliveryStore(database).for_meeting("short")
        assert await SqlRepository(database).get_minutes("short") is not None
    assert delivery.status == "pending" and delivery.attempts == 0
    print(f"replay with a hanging webhook: {elapsed:.1f} s")


@pytest.mark.slow
@pytest.mark.worker
async def test_the_worker_resumes_pending_deliveries_at_start(tmp_path) -> None:
    """`mithub worker start` sends what was left pending as it starts, before (and whether or
    not) it reaches the LiveKit server, and stops within its bounded wait on SIGTERM."""
    import signal

    pytest.importorskip("livekit.agents", reason="needs the worker extra: pip install 'mithub[worker]'")
    url = f"sqlite+aiosqlite:///{tmp_path / 'mithub.db'}"
    receiver = WebhookReceiver(port=WebhookReceiver.closed_port())
    async with _store(url) as database:
        await add_meeting(database)
        delivery = await SqlDeliveryStore(database).add("m-1", url=receiver.url, format="json", body=b'{"w":1}',
                                                        now=datetime.now(timezone.utc))
    env = {**subprocess_env(), "DATABASE_URL": url, "MINUTES_WEBHOOK_URL": receiver.url,
           "MINUTES_WEBHOOK_SECRET": SECRET, "LIVEKIT_URL": f"ws://127.0.0.1:{WebhookReceiver.closed_port()}",
           "LIVEKIT_API_SECRET": "s" * 40, "METRICS_PORT": "0", "WORKER_HTTP_PORT": "0", "LLM_BASE_URL": ""}
    with receiver:
        process = subprocess.Popen([sys.executable, "-m", "mithub.cli", "worker", "start"], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            assert await until(lambda: _delivered_in(url, delivery), timeout=240)
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                _out, err = process.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()
                _out, err = process.communicate()
    assert process.returncode == 0, err  # stopped by itself on SIGTERM
    assert len(receiver.requests) == 1 and receiver.requests[0].body == b'{"w":1}'
    assert SECRET not in err and receiver.path not in err


async def test_two_processes_on_one_store_send_each_delivery_once(new_database_url) -> None:
    """The worker and the API both run a runner over the same database: each delivery is
    claimed by one of them (on SQLite and PostgreSQL)."""
    from mithub.minutes.delivery import DeliveryRunner

    url = new_database_url()
    first, second = await open_database(url), await open_database(url)
    try:
        await add_meeting(first)
        with WebhookReceiver() as receiver:
            config = webhook(receiver.url)
            store = SqlDeliveryStore(first)
            now = datetime.now(timezone.utc)
            deliveries = [await store.add("m-1", url=receiver.url, format="json", body=f'{{"n":{n}}}'.encode(),
                                          now=now) for n in range(6)]
            runners = [DeliveryRunner(first, config).start(), DeliveryRunner(second, config).start()]
            for delivery in deliveries:
                assert await until(lambda d=delivery: _delivered(first, d))
            for runner in runners:
                await runner.aclose()
        assert sorted(r.body for r in receiver.requests) == sorted(f'{{"n":{n}}}'.encode() for n in range(6))
    finally:
        await first.dispose()
        await second.dispose()


@pytest.mark.slow
async def test_a_replay_delivers_its_minutes_before_it_exits(tmp_path) -> None:
    """The replay's end waits (bounded) for the first attempt: a receiver that is up gets the
    minutes from the replay itself, not at the next start of a worker or API. Then
    `mithub minutes deliver` finds nothing left to send."""
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "examples" / "meetings" / "ko_product_planning_3.jsonl"
    url = f"sqlite+aiosqlite:///{tmp_path / 'mithub.db'}"
    with WebhookReceiver() as receiver:
        env = {**subprocess_env(), "LLM_BASE_URL": "", "MINUTES_WEBHOOK_URL": receiver.url,
               "MINUTES_WEBHOOK_FORMAT": "slack"}
        done = await asyncio.to_thread(subprocess.run, [
            sys.executable, "-m", "mithub.cli", "replay", str(example), "--meeting-id", "short", "--database-url",
            url, "--no-progress", "--json"], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        [request] = receiver.requests
        assert "blocks" in json.loads(request.body)
        later = await asyncio.to_thread(subprocess.run, [
            sys.executable, "-m", "mithub.cli", "minutes", "deliver", "--database-url", url],
            env=env, capture_output=True, text=True, timeout=120)
    assert later.returncode == 0, later.stderr
    assert "no pending deliveries" in later.stdout and "delivered 1" in later.stdout
