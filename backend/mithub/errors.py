"""One error hierarchy. Each error reads as one line: what failed, which input, what to do."""

from __future__ import annotations

from pathlib import Path


class MitHubError(Exception):
    """Base of every error MitHub raises on purpose."""


class ConfigError(MitHubError):
    """A setting is missing or inconsistent."""


class InputError(MitHubError):
    """A user-supplied input (file, line, request body) is malformed."""

    def __init__(
        self, message: str, *, source: str | Path | None = None, line: int | None = None
    ) -> None:
        self.source = str(source) if source is not None else None
        self.line = line
        where = ""
        if self.source is not None:
            where = f"{self.source}:{line}: " if line is not None else f"{self.source}: "
        super().__init__(f"{where}{message}")


class LLMError(MitHubError):
    """The LLM server failed, timed out or answered with something unusable."""


class LLMOutputError(LLMError):
    """The LLM answered, but the output does not parse into the expected JSON."""


class ModelLoadError(MitHubError):
    """A model (embedder, STT) could not be loaded from its path or package."""


class StoreError(MitHubError):
    """The meeting store failed to read or write."""


class LeaseError(StoreError):
    """Another writer owns the meeting."""


class IndexFormatError(MitHubError):
    """A retrieval index on disk is missing, damaged, or was built with other settings."""


class BackPressureError(StoreError):
    """The database is unreachable and the in-memory write queue is full: the write was
    not accepted; retry it once the database is back."""


class QueryTooLongError(InputError):
    """A question over the length limit: the same limit and words for the CLI and the API
    (the input itself is never echoed back)."""

    def __init__(self, length: int, limit: int) -> None:
        super().__init__(f"the question is {length} characters long; at most {limit} are accepted "
                         "(API_MAX_QUERY_CHARS)")
        self.limit = limit

    @classmethod
    def check(cls, query: str | None, limit: int) -> None:
        if query is not None and len(query) > limit:
            raise cls(len(query), limit)


class MeetingNotFoundError(InputError):
    """A meeting id the store does not hold."""

    def __init__(self, meeting_id: str) -> None:
        super().__init__(f"meeting {meeting_id!r} is not in the store; check the id (`mithub meetings list`) "
                         "and the --database-url")
        self.meeting_id = meeting_id
