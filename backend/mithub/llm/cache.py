"""A small LRU of LLM answers keyed by (model, prompt hash): a repeated question over the same
context is answered at once, and a failed call can fall back to a recent identical one."""

from __future__ import annotations

import hashlib
from collections import OrderedDict


class ResponseCache:
    def __init__(self, max_entries: int = 256) -> None:
        self._max = max_entries
        self._entries: OrderedDict[str, str] = OrderedDict()

    @staticmethod
    def key(model: str, *parts: str) -> str:
        digest = hashlib.sha256()
        for part in (model, *parts):
            digest.update(part.encode("utf-8"))
            digest.update(b"\x00")
        return digest.hexdigest()

    def get(self, key: str) -> str | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: str, value: str) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
