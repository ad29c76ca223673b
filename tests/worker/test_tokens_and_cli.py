"""`mithub token` and `mithub worker` from the command line, and the chat/wake parsers."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("livekit.api", reason="needs the worker extra: pip install 'mithub[worker]'")

from livekit import api  # noqa: E402

from mithub.cli import main  # noqa: E402
from mithub.config import get_livekit_config, get_worker_config  # noqa: E402
from mithub_worker.commands import (  # noqa: E402
    CallRequest,
    CommandError,
    parse_chat,
    parse_rpc_payload,
    parse_wake_phrase,
)

SECRET = "a-test-secret-that-is-long-enough-123"


@pytest.fixture
def livekit_env(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("LIVEKIT_API_KEY", "testkey")
    monkeypatch.setenv("LIVEKIT_API_SECRET", SECRET)
    get_livekit_config.cache_clear()
    get_worker_config.cache_clear()
    yield
    get_livekit_config.cache_clear()
    get_worker_config.cache_clear()


def test_token_lets_the_identity_join_the_room_and_dispatches_the_bot(livekit_env, capsys) -> None:
    assert main(["token", "--room", "weekly", "--identity", "alice", "--name", "Alice"]) == 0
    jwt = capsys.readouterr().out.strip()
    claims = api.TokenVerifier("testkey", SECRET).verify(jwt)
    assert claims.identity == "alice" and claims.name == "Alice"
    assert claims.video.room == "weekly" and claims.video.room_join and claims.video.can_publish
    assert [a.agent_name for a in claims.room_config.agents] == ["mithub"]


def test_token_without_a_secret_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("LIVEKIT_API_SECRET", "")
    get_livekit_config.cache_clear()
    try:
        assert main(["token", "--room", "weekly", "--identity", "alice"]) == 1
    finally:
        get_livekit_config.cache_clear()
    assert "LIVEKIT_API_SECRET is not set" in capsys.readouterr().err


def test_worker_without_a_secret_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("LIVEKIT_API_SECRET", "")
    get_livekit_config.cache_clear()
    try:
        assert main(["worker", "start"]) == 1
    finally:
        get_livekit_config.cache_clear()
    assert "LIVEKIT_API_SECRET is not set" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "expected"), [
    ("/ask what is the budget?", CallRequest("IMMEDIATE_RESPONSE", "what is the budget?")),
    ("/summary", CallRequest("SUMMARY")),
    ("/ACTIONS", CallRequest("ACTION_EXTRACTION")),
    ("/search 예산 승인", CallRequest("SEARCH", "예산 승인")),
    ("@MitHub who owns the release?", CallRequest("IMMEDIATE_RESPONSE", "who owns the release?")),
    ("미트허브 예산이 얼마였죠?", CallRequest("IMMEDIATE_RESPONSE", "예산이 얼마였죠?")),
    ("thanks everyone", None),
])
def test_chat_lines(text: str, expected: object) -> None:
    assert parse_chat(text, bot_names=["MitHub", "미트허브"]) == expected


@pytest.mark.parametrize("text", ["/ask", "/dance now", "@MitHub"])
def test_chat_lines_that_need_a_fix_say_which(text: str) -> None:
    parsed = parse_chat(text, bot_names=["MitHub"])
    assert isinstance(parsed, CommandError) and parsed.message


@pytest.mark.parametrize(("said", "question"), [
    ("MitHub, what did we decide about pricing?", "what did we decide about pricing?"),
    ("Meet hub. Who owns the launch?", "Who owns the launch?"),
    ("mit-hub when is the deadline", "when is the deadline"),
    ("미트허브, 지난 회의 결정 사항 알려줘", "지난 회의 결정 사항 알려줘"),
    ("The summit hub is in Berlin.", None),
    ("We should ask the team.", None),
])
def test_wake_phrases(said: str, question: str | None) -> None:
    assert parse_wake_phrase(said, ["미트허브", "mithub", "mit hub", "meet hub"]) == question


def test_rpc_payloads() -> None:
    assert parse_rpc_payload('{"call_type": "summary"}') == CallRequest("SUMMARY")
    assert parse_rpc_payload('{"call_type": "SEARCH", "query": "budget"}') == CallRequest("SEARCH", "budget")
    for bad in ("not json", "[]", '{"call_type": "SEARCH"}', '{"call_type": "X"}', '{"call_type": "SUMMARY", "query": 3}'):
        assert isinstance(parse_rpc_payload(bad), CommandError), bad


def test_a_meeting_is_a_room_session_and_its_series_the_room_or_what_its_metadata_names():
    from mithub_worker.server import meeting_identity

    assert meeting_identity("RM_abc", "weekly-sync", "") == ("RM_abc", "weekly-sync")
    named = json.dumps({"mithub": {"series": "platform-team"}, "other": 1})
    assert meeting_identity("RM_abc", "room-7", named) == ("RM_abc", "platform-team")
    for unreadable in ("not json", "[1, 2]", json.dumps({"mithub": {"series": ""}})):
        assert meeting_identity("RM_abc", "room-7", unreadable) == ("RM_abc", "room-7")
    assert meeting_identity("", "room-7", "") == ("room-7", "room-7"), "no sid: the room name"
