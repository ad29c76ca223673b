"""A LiveKit room without a LiveKit server: `rtc.Room` autospec'd, with real events.

No LiveKit server can run on the test machines, so the worker tests hand livekit-agents
this room in place of its mock room (`fake_job=True` jobs build theirs with
`livekit.agents.ipc.mock_room.create_mock_room`). Events are delivered by a real
EventEmitter; what the bot sends (chat, captions) is recorded; the handlers it registers
(chat text streams, RPC methods) can be invoked as LiveKit would invoke them.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any
from unittest.mock import AsyncMock, create_autospec

from livekit import rtc


@dataclass
class SentText:
    text: str
    topic: str
    attributes: dict[str, str] = field(default_factory=dict)
    sender_identity: str | None = None
    reply_to_id: str | None = None


class FakeTextReader:
    """What a text-stream handler receives: `info` and `read_all()`."""

    def __init__(self, text: str, *, stream_id: str = "TS_1", topic: str = "lk.chat") -> None:
        self._text = text
        self.info = rtc.TextStreamInfo(
            stream_id=stream_id, mime_type="text/plain", topic=topic, timestamp=0, size=None,
            attributes={}, attachments=[],
        )

    async def read_all(self) -> str:
        return self._text


class _Writer:
    def __init__(self, room: FakeRoom, topic: str, attributes: dict[str, str], sender: str | None):
        self._room, self._topic, self._attributes, self._sender = room, topic, attributes, sender
        self._parts: list[str] = []

    async def write(self, text: str) -> None:
        self._parts.append(text)

    async def aclose(self, **_: Any) -> None:
        self._room.sent.append(SentText("".join(self._parts), self._topic, dict(self._attributes),
                                        self._sender))


class FakeRoom:
    """Holds the autospec'd room (`room`) and what happened to it."""

    def __init__(self, name: str, *, local_identity: str = "mithub-bot") -> None:
        self.name = name
        self.sent: list[SentText] = []
        self.text_handlers: dict[str, Any] = {}
        self.rpc_methods: dict[str, Any] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.connected = asyncio.Event()  # in the test's loop: set via call_soon_threadsafe
        self._test_loop = asyncio.get_running_loop()  # build it inside the test's loop
        emitter = rtc.EventEmitter()
        room = create_autospec(rtc.Room, instance=True)
        room.on.side_effect = emitter.on
        room.once.side_effect = emitter.once
        room.off.side_effect = emitter.off
        room.emit.side_effect = emitter.emit
        room._info = create_autospec(rtc.room.proto_room.RoomInfo, instance=True)
        room.name = name
        room.metadata = ""
        room.isconnected.return_value = True
        room.connection_state = rtc.ConnectionState.CONN_CONNECTED
        room.connect.side_effect = self._connect
        room.disconnect.side_effect = self._disconnect
        room.register_text_stream_handler.side_effect = self.text_handlers.__setitem__
        room.unregister_text_stream_handler.side_effect = lambda topic: self.text_handlers.pop(topic, None)
        room.remote_participants = {}
        local = create_autospec(rtc.LocalParticipant, instance=True)
        local.identity = local_identity
        local.sid = "PA_bot"
        local.send_text.side_effect = self._send_text
        local.stream_text.side_effect = self._stream_text
        local.register_rpc_method.side_effect = self._register_rpc
        local.unregister_rpc_method.side_effect = lambda name: self.rpc_methods.pop(name, None)
        room.local_participant = local
        self.room = room

    # ------------------------------------------------------------------ the bot's side

    async def _connect(self, *_: Any, **__: Any) -> None:
        self.loop = asyncio.get_running_loop()
        self.room.isconnected.return_value = True
        self.room.connection_state = rtc.ConnectionState.CONN_CONNECTED
        self._test_loop.call_soon_threadsafe(self.connected.set)

    async def _disconnect(self) -> None:
        self.room.isconnected.return_value = False
        self.room.connection_state = rtc.ConnectionState.CONN_DISCONNECTED
        self.room.emit("disconnected", rtc.DisconnectReason.CLIENT_INITIATED)

    async def _send_text(self, text: str, *, topic: str = "", attributes: dict | None = None,
                         reply_to_id: str | None = None, **_: Any) -> Any:
        if not self.room.isconnected():  # as a real room: nothing reaches it once the bot left
            raise ConnectionError("cannot send text: the room is disconnected")
        self.sent.append(SentText(text, topic, dict(attributes or {}), None, reply_to_id))
        return AsyncMock()

    async def _stream_text(self, *, topic: str = "", attributes: dict | None = None,
                           sender_identity: str | None = None, **_: Any) -> _Writer:
        return _Writer(self, topic, dict(attributes or {}), sender_identity)

    def _register_rpc(self, name: str, handler: Any = None) -> Any:
        self.rpc_methods[name] = handler
        return handler

    # ------------------------------------------------------------------ the test's side

    def add_participant(self, identity: str, name: str, *, emit: bool = False) -> Any:
        participant = create_autospec(rtc.RemoteParticipant, instance=True)
        participant.identity = identity
        participant.name = name
        participant.sid = f"PA_{identity}"
        participant.kind = rtc.ParticipantKind.PARTICIPANT_KIND_STANDARD
        participant.attributes = {}
        publication = create_autospec(rtc.RemoteTrackPublication, instance=True)
        publication.sid = f"TR_{identity}"
        publication.source = rtc.TrackSource.SOURCE_MICROPHONE
        participant.track_publications = {publication.sid: publication}
        self.room.remote_participants[participant.sid] = participant
        if emit:
            self.emit("participant_connected", participant)
        return participant

    def remove_participant(self, participant: Any) -> None:
        self.room.remote_participants.pop(participant.sid, None)
        self.emit("participant_disconnected", participant)

    def emit(self, event: str, *args: Any) -> None:
        """Deliver a room event on the job's loop, as the SDK does."""
        self._in_room_loop(lambda: self.room.emit(event, *args))

    def _in_room_loop(self, fn: Any) -> None:
        loop = self.loop
        if loop is None or loop is asyncio.get_event_loop():
            fn()
        else:
            loop.call_soon_threadsafe(fn)

    async def chat(self, text: str, *, sender: str, stream_id: str = "TS_1") -> None:
        """A participant's chat message on lk.chat, handed to the bot's handler."""
        handler = self.text_handlers["lk.chat"]
        reader = FakeTextReader(text, stream_id=stream_id)
        self._in_room_loop(lambda: handler(reader, sender))

    async def rpc(self, method: str, payload: dict | str, *, caller: str, timeout: float = 120) -> str:
        handler = self.rpc_methods[method]
        data = rtc.RpcInvocationData(
            request_id="rpc-1", caller_identity=caller, method=method,
            payload=payload if isinstance(payload, str) else json.dumps(payload),
            response_timeout=timeout,
        )
        coro = handler(data)
        if self.loop is None or self.loop is asyncio.get_running_loop():
            return await asyncio.wait_for(coro, timeout)
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return await asyncio.wait_for(asyncio.wrap_future(future), timeout)

    def chat_replies(self) -> list[SentText]:
        return [s for s in self.sent if s.topic == "lk.chat"]

    def captions(self) -> list[SentText]:
        return [s for s in self.sent if s.topic == "lk.transcription"]


async def wait_for(predicate: Any, *, timeout: float, interval: float = 0.1, what: str = "") -> None:
    """Poll `predicate()` (sync or async) until true; fail with `what` after `timeout` s."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        result = predicate()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}")
        await asyncio.sleep(interval)
