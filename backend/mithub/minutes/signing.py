"""Signing a webhook delivery, and checking one (for a receiver written in Python).

The scheme (see `minutes.delivery` for the headers): the signed string is the attempt's Unix
time in seconds, a dot, then the exact body bytes; the signature is the lowercase hex
HMAC-SHA256 of it keyed with MINUTES_WEBHOOK_SECRET, sent as `sha256=<hex>`. The timestamp is
part of what is signed, so a captured request cannot be replayed later with a new one.
"""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_HEADER = "X-MitHub-Signature"
TIMESTAMP_HEADER = "X-MitHub-Timestamp"
SIGNATURE_PREFIX = "sha256="
DEFAULT_TOLERANCE_SECONDS = 300


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """`sha256=<hex>` of HMAC-SHA256(secret, "<timestamp>." + body)."""
    signed = str(timestamp).encode("ascii") + b"." + body
    return SIGNATURE_PREFIX + hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()


def signature_headers(secret: str, body: bytes, *, timestamp: int | None = None) -> dict[str, str]:
    """The two signing headers of one attempt (a fresh timestamp each time)."""
    moment = int(time.time()) if timestamp is None else timestamp
    return {TIMESTAMP_HEADER: str(moment), SIGNATURE_HEADER: signature(secret, moment, body)}


def verify_signature(
    secret: str, body: bytes, timestamp: str, signed: str, *,
    now: float | None = None, tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS,
) -> bool:
    """True when `signed` is the signature of `body` at `timestamp` and the timestamp is within
    `tolerance_seconds` of now (older requests are refused as replays)."""
    try:
        moment = int(timestamp)
    except ValueError:
        return False
    current = time.time() if now is None else now
    if abs(current - moment) > tolerance_seconds:
        return False
    return hmac.compare_digest(signature(secret, moment, body), signed.strip())
