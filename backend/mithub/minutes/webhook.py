"""One webhook POST of a delivery and what to do next: delivered, try again later (when, with
backoff and jitter, or the receiver's Retry-After), or give up. The headers and the signature
scheme are described in `minutes.delivery`.

Nothing here logs the URL (it may carry a token) or the secret; errors name the host only.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Literal
from urllib.parse import urlsplit

import httpx

from mithub import __version__
from mithub.config import MinutesWebhookConfig
from mithub.minutes.signing import signature_headers
from mithub.store.deliveries import Delivery

Outcome = Literal["delivered", "retry", "failed"]

ERROR_CHARS = 300
MAX_RETRY_AFTER_SECONDS = 24 * 3600.0  # a Retry-After further out is read as this


@dataclass(frozen=True)
class PostResult:
    outcome: Outcome
    status_code: int | None = None
    error: str | None = None
    retry_after: float | None = None
    seconds: float = 0.0


# Webhook URLs this process knows: hidden in every message that goes through `redact`, in
# httpx's own "HTTP Request: POST <url>" line (INFO) and in aiosqlite's statements with their
# parameters (DEBUG), which would otherwise print the token.
REDACTED_LOGGERS = ("httpx", "aiosqlite")
_known_urls: set[str] = set()
_known_lock = threading.Lock()


class _RedactWebhookUrls(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        hidden = redact(message)
        if hidden != message:
            record.msg, record.args = hidden, None
        return True


_REDACTOR = _RedactWebhookUrls()


def hide_url(url: str) -> None:
    """From now on, `url` never appears whole in this process's logs (its host does)."""
    with _known_lock:
        _known_urls.update({url, str(httpx.URL(url))} if url else ())
    for name in REDACTED_LOGGERS:
        library_logger = logging.getLogger(name)
        if _REDACTOR not in library_logger.filters:
            library_logger.addFilter(_REDACTOR)


def redact(text: str) -> str:
    """`text` with every known webhook URL replaced by its host."""
    with _known_lock:
        urls = sorted(_known_urls, key=len, reverse=True)
    for url in urls:
        if url in text:
            text = text.replace(url, webhook_host(url))
    return text


def webhook_host(url: str) -> str:
    """What a log line may say about a webhook URL: its host (and port), never its path or query."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or "?"
        return f"{host}:{parts.port}" if parts.port else host
    except ValueError:
        return "?"


def delivery_headers(delivery: Delivery, body: bytes, *, attempt: int, secret: str) -> dict[str, str]:
    headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": f"MitHub/{__version__}",
               "X-MitHub-Event": "minutes", "X-MitHub-Delivery": delivery.id, "X-MitHub-Attempt": str(attempt),
               "X-MitHub-Format": delivery.format}
    if secret:
        headers.update(signature_headers(secret, body))
    return headers


async def post_delivery(client: httpx.AsyncClient, delivery: Delivery, *, attempt: int, secret: str
                        ) -> PostResult:
    """POST the delivery's body once and classify the answer: 2xx delivered; 429, 5xx, a timeout
    or a connection error retry; any other answer (a 4xx, a redirect) or a URL that is not
    http(s) fails at once (sending the same request again would not change it)."""
    body = delivery.body.encode("utf-8")
    hide_url(delivery.url)
    started = time.perf_counter()
    try:
        response = await client.post(delivery.url, content=body,
                                     headers=delivery_headers(delivery, body, attempt=attempt, secret=secret))
    except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
        return PostResult("failed", error=_scrub(f"not a usable http(s) URL ({type(exc).__name__}); "
                                                 "check MINUTES_WEBHOOK_URL", delivery.url))
    except httpx.TimeoutException as exc:
        return PostResult("retry", error=f"{type(exc).__name__}: no answer within the time limit",
                          seconds=time.perf_counter() - started)
    except httpx.TransportError as exc:
        return PostResult("retry", error=_scrub(f"{type(exc).__name__}: {exc}", delivery.url),
                          seconds=time.perf_counter() - started)
    return classify(response, delivery.url, seconds=time.perf_counter() - started)


def classify(response: httpx.Response, url: str, *, seconds: float = 0.0) -> PostResult:
    code = response.status_code
    if 200 <= code < 300:
        return PostResult("delivered", status_code=code, seconds=seconds)
    said = _scrub(" ".join(response.text.split())[:ERROR_CHARS], url)
    error = f"HTTP {code}" + (f": {said}" if said else "")
    if code == 429 or code >= 500:
        return PostResult("retry", status_code=code, error=error, seconds=seconds,
                          retry_after=retry_after_seconds(response.headers.get("Retry-After")))
    if 300 <= code < 400:
        error += "; the webhook answered with a redirect: set MINUTES_WEBHOOK_URL to the final URL"
    return PostResult("failed", status_code=code, error=error, seconds=seconds)


def retry_after_seconds(value: str | None, *, now: datetime | None = None) -> float | None:
    """Retry-After as seconds from now: a number of seconds or an HTTP date; None if absent or
    unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            moment = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        seconds = (moment - (now or datetime.now(timezone.utc))).total_seconds()
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_SECONDS)


def backoff_seconds(failed_attempts: int, config: MinutesWebhookConfig, *, retry_after: float | None = None,
                    rng: Callable[[], float] = random.random) -> float:
    """Wait before the next attempt after `failed_attempts` failures: the base doubled for each
    failure but the first, capped, then jittered to between half and all of it (deliveries that
    failed together do not all come back at once); never sooner than the receiver's Retry-After."""
    ceiling = min(config.backoff_seconds * 2 ** min(max(failed_attempts - 1, 0), 60), config.backoff_max_seconds)
    wait = ceiling * (0.5 + 0.5 * rng())
    return max(wait, retry_after) if retry_after is not None else wait


def _scrub(text: str, url: str) -> str:
    """An error message without the URL (its path may hold a token)."""
    return redact(text.replace(url, webhook_host(url)) if url else text)
