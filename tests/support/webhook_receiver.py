"""A real HTTP webhook receiver on 127.0.0.1 for delivery tests: it records every POST (headers
and exact body bytes) and answers with the statuses it is told to, in order, then 200.

    with WebhookReceiver(statuses=[503, 503]) as receiver:
        ...  # POST to receiver.url
        receiver.requests[0].body

`WebhookReceiver.closed_port()` gives a port nobody listens on (a receiver that is down); a
receiver started later on that port is the same receiver coming back up. `HangingReceiver`
accepts connections and never answers.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float  # time.monotonic()


class WebhookReceiver:
    def __init__(self, *, port: int = 0, statuses: Iterable[int | tuple[int, dict[str, str]]] = (),
                 path: str = "/hooks/T000/B000/s3cr3t-t0ken") -> None:
        self.port = port
        self.path = path
        self.statuses = list(statuses)
        self.requests: list[Received] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @staticmethod
    def closed_port() -> int:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            return probe.getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    def _next_answer(self) -> tuple[int, dict[str, str]]:
        with self._lock:
            answer = self.statuses.pop(0) if self.statuses else 200
        return answer if isinstance(answer, tuple) else (answer, {})

    def start(self) -> WebhookReceiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver._lock:
                    receiver.requests.append(Received(self.path, dict(self.headers.items()), body, time.monotonic()))
                status, headers = receiver._next_answer()
                payload = b"ok" if status < 300 else b"no"
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> WebhookReceiver:
        return self.start() if self._server is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class HangingReceiver:
    """Accepts connections and reads, but never answers (a receiver stuck behind a proxy)."""

    def __init__(self) -> None:
        self._socket = socket.socket()
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self.port = self._socket.getsockname()[1]
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/hanging"

    def _accept(self) -> None:
        self._socket.settimeout(0.1)
        while not self._stop.is_set():
            try:
                connection, _ = self._socket.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._held.append(connection)

    def close(self) -> None:
        self._stop.set()
        for connection in self._held:
            connection.close()
        self._socket.close()


def wait_until(condition: Callable[[], bool], timeout: float = 10.0, step: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()
