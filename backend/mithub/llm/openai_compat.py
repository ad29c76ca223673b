"""OpenAI-compatible chat completions over httpx: llama.cpp `llama-server`, llama-cpp-python's
server, vLLM, Ollama, or any compatible endpoint.

JSON output is constrained with `response_format`. Servers disagree on its form: OpenAI's
`{"type": "json_schema", ...}` is refused (HTTP 500) by llama-cpp-python, which wants
`{"type": "json_object", "schema": ...}`; llama-server takes both. In `auto` mode the client
tries the OpenAI form once and, if the server rejects it, keeps using the llama.cpp form.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Literal

import httpx
import structlog

from mithub.budget import TokenBudgetManager
from mithub.config import LLMConfig
from mithub.errors import LLMError
from mithub.observability import record_llm_request

logger = structlog.get_logger(__name__)

ResponseFormat = Literal["auto", "json_schema", "json_object"]


class OpenAICompatibleClient:
    """Implements `mithub.llm.LLMClient`. Retries transport errors, timeouts and 5xx answers
    `max_retries` times with a short backoff; raises `LLMError` after that."""

    def __init__(
        self,
        config: LLMConfig,
        *,
        response_format: ResponseFormat = "auto",
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not config.enabled:
            raise LLMError("LLM_BASE_URL is empty; set it to an OpenAI-compatible /v1 endpoint")
        self.model = config.model
        self._config = config
        self._format: ResponseFormat = response_format
        self._tokenize_path: str | None = None
        headers = {"Content-Type": "application/json"}
        key = config.api_key.get_secret_value()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._http = httpx.AsyncClient(
            base_url=config.base_url.rstrip("/"),
            headers=headers,
            timeout=httpx.Timeout(config.timeout_seconds, connect=min(5.0, config.timeout_seconds)),
            transport=transport,
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def count_tokens(self, text: str) -> int | None:
        """Exact token count from the server's tokenizer: llama-cpp-python's
        `POST /extras/tokenize` or llama-server's `POST /tokenize` (both beside /v1). None when
        the server has neither, or cannot be reached: callers keep the estimate."""
        root = self._config.base_url.rstrip("/").removesuffix("/v1")
        attempts = [("/extras/tokenize", {"input": text, "model": self.model}), ("/tokenize", {"content": text})]
        if self._tokenize_path is not None:
            attempts = [a for a in attempts if a[0] == self._tokenize_path]
        for path, body in attempts:
            try:
                response = await self._http.post(f"{root}{path}", json=body)
            except httpx.HTTPError:
                return None
            if response.status_code == 200:
                tokens = response.json().get("tokens")
                if isinstance(tokens, list):
                    self._tokenize_path = path
                    return len(tokens)
        self._tokenize_path = None
        return None

    def _response_format(self, schema: dict[str, Any]) -> dict[str, Any]:
        if self._format == "json_object":
            return {"type": "json_object", "schema": schema}
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}

    async def complete_json(
        self, *, system: str, user: str, schema: dict[str, Any], max_tokens: int
    ) -> str:
        started = time.perf_counter()
        try:
            content, usage = await self._complete(system, user, schema, max_tokens)
        except LLMError:
            record_llm_request(ok=False, seconds=time.perf_counter() - started)
            raise
        record_llm_request(ok=True, seconds=time.perf_counter() - started,
                           **_token_counts(usage, system + user, content))
        return content

    async def _complete(
        self, system: str, user: str, schema: dict[str, Any], max_tokens: int
    ) -> tuple[str, Any]:
        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "max_tokens": max_tokens,
            "temperature": self._config.temperature,
            "response_format": self._response_format(schema),
        }
        response = await self._post("/chat/completions", body)
        if response.status_code >= 400 and self._format == "auto":
            # The server refused the OpenAI json_schema form: switch to llama.cpp's form for good.
            logger.info("llm_response_format_switched", to="json_object", status=response.status_code)
            self._format = "json_object"
            body["response_format"] = self._response_format(schema)
            response = await self._post("/chat/completions", body)
        elif self._format == "auto":
            self._format = "json_schema"
        if response.status_code >= 400:
            raise LLMError(f"LLM server answered HTTP {response.status_code} at {self._config.base_url}")
        try:
            payload = response.json()
            return payload["choices"][0]["message"]["content"] or "", payload.get("usage")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise LLMError("LLM server answer is not an OpenAI chat completion") from exc

    async def _post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        attempts = self._config.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                response = await self._http.post(path, json=body)
            except httpx.TimeoutException as exc:
                error: Exception = exc
                reason = f"timed out after {self._config.timeout_seconds:g}s"
            except httpx.TransportError as exc:
                error, reason = exc, f"unreachable ({type(exc).__name__})"
            else:
                if response.status_code < 500 or attempt == attempts:
                    return response
                error, reason = LLMError(f"HTTP {response.status_code}"), f"HTTP {response.status_code}"
            logger.warning("llm_request_failed", attempt=attempt, attempts=attempts, reason=reason)
            if attempt == attempts:
                raise LLMError(f"LLM server at {self._config.base_url} {reason}") from error
            await asyncio.sleep(min(0.25 * 2 ** (attempt - 1), 2.0))
        raise AssertionError("unreachable")  # the loop returns or raises


_ESTIMATOR = TokenBudgetManager()


def _token_counts(usage: Any, prompt: str, completion: str) -> dict[str, Any]:
    """The server's own counts from the OpenAI `usage` field when it sent them, else our
    estimate (chat template tokens are then not counted)."""
    if isinstance(usage, dict):
        prompt_tokens, completion_tokens = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if isinstance(prompt_tokens, int) and isinstance(completion_tokens, int):
            return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                    "from_usage": True}
    return {"prompt_tokens": _ESTIMATOR.count(prompt), "completion_tokens": _ESTIMATOR.count(completion),
            "from_usage": False}
