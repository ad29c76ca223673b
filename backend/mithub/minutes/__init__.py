"""After the meeting: its minutes, composed from the record when it ends (`compose`), stored
with the meeting (`closing`), rendered as Markdown and a chat message (`render`)."""

from mithub.minutes.closing import close_minutes
from mithub.minutes.compose import MeetingNotFoundError, compose_minutes
from mithub.minutes.models import Minutes
from mithub.minutes.render import to_chat, to_markdown

__all__ = ["MeetingNotFoundError", "Minutes", "close_minutes", "compose_minutes", "to_chat", "to_markdown"]
