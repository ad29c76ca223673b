"""What a participant asks the bot, from a chat line, a spoken wake phrase or an RPC payload.

Chat (`lk.chat`): `/ask <question>`, `/summary`, `/actions`, `/search <query>`, `/help`, or a
message that mentions the bot ("@MitHub what did we decide?"). Speech: a wake phrase
("미트허브", "MitHub") followed by a question. RPC `mithub.call`: `{"call_type", "query"}`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass

from mithub.context.models import AGENT_CALL_TYPES, AgentCallType

MAX_QUERY_CHARS = 2000

HELP_TEXT = (
    "MitHub commands: /ask <question> · /summary · /actions · /search <query> · "
    "or mention @{bot} with a question. Say \"{wake} ...\" to ask by voice."
)

_SLASH: dict[str, tuple[AgentCallType, bool]] = {
    # command: (call type, needs a query)
    "ask": ("IMMEDIATE_RESPONSE", True),
    "summary": ("SUMMARY", False),
    "actions": ("ACTION_EXTRACTION", False),
    "search": ("SEARCH", True),
}


@dataclass(frozen=True)
class CallRequest:
    call_type: AgentCallType
    query: str | None = None


@dataclass(frozen=True)
class CommandError:
    """A message meant for the bot that cannot be run; `message` tells the sender the fix."""

    message: str


def parse_chat(text: str, *, bot_names: list[str]) -> CallRequest | CommandError | None:
    """A chat line as a call, an error to answer, or None for ordinary chat (ignored)."""
    text = text.strip()
    if text.startswith("/"):
        return _parse_slash(text)
    question = _after_mention(text, bot_names)
    if question is None:
        return None
    if not question:
        return CommandError(f"Ask a question after the mention, e.g. \"@{bot_names[0]} what did we decide?\"")
    return _request("IMMEDIATE_RESPONSE", question)


def _parse_slash(text: str) -> CallRequest | CommandError:
    name, _, rest = text[1:].partition(" ")
    name = name.lower()
    rest = rest.strip()
    if name == "help":
        return CommandError("help")
    if name not in _SLASH:
        return CommandError(f"Unknown command /{name}. Try /ask, /summary, /actions or /search.")
    call_type, needs_query = _SLASH[name]
    if needs_query and not rest:
        return CommandError(f"/{name} needs a question, e.g. \"/{name} what is the Q3 budget?\"")
    return _request(call_type, rest or None)


def _after_mention(text: str, bot_names: list[str]) -> str | None:
    """The message with the bot's mention removed, if it mentions the bot at all."""
    for name in bot_names:
        match = re.search(rf"@?\b{re.escape(name)}\b[\s,:!?.]*", text, flags=re.IGNORECASE)
        if match:
            return (text[: match.start()] + " " + text[match.end():]).strip(" ,:")
    return None


def parse_wake_phrase(text: str, phrases: list[str]) -> str | None:
    """The question after a spoken wake phrase, or None. Speech-to-text spells the bot's name
    in many ways ("MitHub", "Mit Hub", "meet hub,"), so the match ignores case, punctuation
    and the spaces inside the phrase. A wake phrase with nothing after it returns ""."""
    normalized, offsets = _normalize(text)
    for phrase in phrases:
        target, _ = _normalize(phrase)
        target = target.replace(" ", "")
        if not target:
            continue
        index = _find_ignoring_spaces(normalized, target)
        if index is None:
            continue
        _, end = index
        return text[offsets[end - 1] + 1:].lstrip(" \t,.:;!?~-").rstrip()
    return None


def _normalize(text: str) -> tuple[str, list[int]]:
    """Lowercase letters, digits and single spaces, with each kept character's index in
    `text` (so a match maps back to the original)."""
    chars: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if category[0] in "LN":
            chars.append(ch.lower())
            offsets.append(i)
        elif chars and chars[-1] != " ":
            chars.append(" ")
            offsets.append(i)
    return "".join(chars), offsets


def _find_ignoring_spaces(haystack: str, needle: str) -> tuple[int, int] | None:
    """Start and end (exclusive) in `haystack` of `needle`, spaces in haystack skipped."""
    squeezed = [(i, ch) for i, ch in enumerate(haystack) if ch != " "]
    text = "".join(ch for _, ch in squeezed)
    found = text.find(needle)
    if found < 0:
        return None
    # a word boundary before the phrase: "summit hub" is not "mit hub"
    first = squeezed[found][0]
    if first > 0 and haystack[first - 1] != " ":
        return None
    last = squeezed[found + len(needle) - 1][0]
    return first, last + 1


def parse_rpc_payload(payload: str) -> CallRequest | CommandError:
    """`{"call_type": "SUMMARY"}` or `{"call_type": "IMMEDIATE_RESPONSE", "query": "..."}`."""
    try:
        data = json.loads(payload or "{}")
    except json.JSONDecodeError as exc:
        return CommandError(f"payload is not JSON ({exc.msg}); send {{\"call_type\": ..., \"query\": ...}}")
    if not isinstance(data, dict):
        return CommandError("payload must be a JSON object {\"call_type\": ..., \"query\": ...}")
    call_type = str(data.get("call_type", "")).upper()
    if call_type not in AGENT_CALL_TYPES:
        return CommandError(f"call_type must be one of {', '.join(AGENT_CALL_TYPES)}")
    query = data.get("query")
    if query is not None and not isinstance(query, str):
        return CommandError("query must be a string")
    query = (query or "").strip() or None
    if call_type in ("IMMEDIATE_RESPONSE", "SEARCH") and not query:
        return CommandError(f"{call_type} needs a query")
    return _request(call_type, query)  # type: ignore[arg-type]


def _request(call_type: AgentCallType, query: str | None) -> CallRequest | CommandError:
    if query and len(query) > MAX_QUERY_CHARS:
        return CommandError(f"the question is {len(query)} characters; keep it under {MAX_QUERY_CHARS}")
    return CallRequest(call_type, query)


def help_text(bot_name: str, wake_phrases: list[str]) -> str:
    return HELP_TEXT.format(bot=bot_name, wake=wake_phrases[0] if wake_phrases else bot_name)
