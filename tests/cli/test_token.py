"""`mithub token` with the README's dev secret (issue 19 item 11): one plain note on stderr
instead of PyJWT's InsecureKeyLengthWarning; none with a long secret."""

from __future__ import annotations

import warnings

import pytest
import structlog

from mithub.cli import main
from mithub.config import get_livekit_config

pytest.importorskip("livekit.api")


@pytest.fixture(autouse=True)
def _restore_logging():
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


@pytest.fixture
def secret(monkeypatch):
    def use(value: str) -> None:
        monkeypatch.setenv("LIVEKIT_API_KEY", "devkey")
        monkeypatch.setenv("LIVEKIT_API_SECRET", value)
        get_livekit_config.cache_clear()

    yield use
    get_livekit_config.cache_clear()


@pytest.mark.parametrize("value, noted", [("secret", True), ("s" * 40, False)])
def test_a_short_dev_secret_gets_one_note_and_no_library_warning(secret, capsys, value, noted):
    secret(value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["token", "--room", "weekly", "--identity", "alice"]) == 0

    out, err = capsys.readouterr()
    assert out.count(".") == 2  # one JWT: header.payload.signature
    assert not [w for w in caught if "HMAC key" in str(w.message)]
    assert ("note: LIVEKIT_API_SECRET has 6 characters" in err) is noted
    assert len(err.strip().splitlines()) == (1 if noted else 0)
