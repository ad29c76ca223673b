"""The recap page (`/ui/`, issue 20): server-rendered HTML over the store, served by the API
process. No JavaScript, no build step: Jinja2 templates (autoescaped: meeting text is always
shown as text) and one stylesheet.

    /ui/login                     the API token, typed once (the page's only POST)
    /ui/                          the series and their meetings, by date
    /ui/meetings/{id}             a meeting: timeline, talk time, decisions, actions, transcript
    /ui/series/{id}/ledger        decisions active or changed; action items (?owner=, ?state=)
    /ui/series/{id}/search?q=     the organisation memory's search, with cited excerpts

Every page but the login, the logout and the stylesheet needs the session cookie (`ui_session`:
signed, HTTP-only, SameSite=Strict); without it a page answers 303 to the login, which comes
back to the page afterwards.
"""

from __future__ import annotations

import asyncio
import re
from importlib.resources import files
from typing import Annotated, Any
from urllib.parse import parse_qs, quote

from fastapi import Depends, FastAPI, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, StrictUndefined

from mithub.agent.decision_watch import series_ledger
from mithub.agent.runtime import AgentRuntime
from mithub.api import recap
from mithub.api.ui_labels import LABELS, Language, request_language, text_language
from mithub.api.ui_session import FORM_COOKIE, FORM_SECONDS, SESSION_COOKIE, SESSION_SECONDS, UiSession, \
    clear_cookie, set_cookie
from mithub.clock import Clock, stamp, utc_now
from mithub.config import APIConfig
from mithub.context.models import Utterance
from mithub.errors import MeetingNotFoundError
from mithub.minutes.compose import stored_or_composed
from mithub.minutes.models import Minutes
from mithub.store.records import MeetingOverview

SEARCH_BUDGET_TOKENS = 1500  # of excerpts shown for one search (the memory's own budget unit)
MAX_FORM_BYTES = 16 * 1024
HEADERS = {
    # No script may run on these pages, whatever a transcript holds.
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self' data:; "
                               "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
MeetingId = Annotated[str, Path(pattern=r"^[A-Za-z0-9._:-]{1,200}$", description="meeting id")]
SeriesId = Annotated[str, Path(min_length=1, max_length=200, description="series id")]
_NEXT = re.compile(r"^/ui/[^/\\][^\\]*$|^/ui/$")


class SignInRequired(Exception):
    def __init__(self, next_path: str) -> None:
        self.next_path = next_path


def templates() -> Environment:
    env = Environment(loader=PackageLoader("mithub.api", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.globals.update(meeting_url=recap.meeting_url, quote=quote, stamp=stamp)
    return env


def safe_next(value: str | None) -> str:
    """Where the login goes back to: a page of /ui/ only (never another site)."""
    return value if value and _NEXT.match(value) and "//" not in value else "/ui/"


class RecapPages:
    """The page's routes over one runtime; `mount_ui` puts them on the app."""

    def __init__(self, runtime: AgentRuntime, config: APIConfig, clock: Clock = utc_now) -> None:
        self.runtime, self.config, self.clock = runtime, config, clock
        self.session = UiSession(config.required_token())
        self.env = templates()
        self.stylesheet = (files("mithub.api") / "static" / "ui.css").read_text(encoding="utf-8")

    def render(self, request: Request, name: str, language: Language, *, status: int = 200,
               **context: Any) -> HTMLResponse:
        html = self.env.get_template(name).render(lang=language, t=LABELS[language],
                                                  signed_in=self.session.signed_in(request), **context)
        return HTMLResponse(html, status_code=status, headers=HEADERS)

    def not_found(self, request: Request, what: str) -> HTMLResponse:
        return self.render(request, "not_found.html", request_language(request.headers.get("accept-language")),
                           status=404, what=what)

    # ------------------------------------------------------------------ signing in

    def require_session(self, request: Request) -> None:
        if not self.session.signed_in(request):
            query = f"?{request.url.query}" if request.url.query else ""
            raise SignInRequired(request.url.path + query)

    async def to_login(self, _request: Request, exc: Exception) -> Response:
        assert isinstance(exc, SignInRequired)
        return RedirectResponse(f"/ui/login?next={quote(exc.next_path, safe='')}", status_code=303,
                                headers=HEADERS)

    def login_form(self, request: Request, next_path: str, *, status: int = 200, error: str | None = None) -> Response:
        nonce, form_token = self.session.new_form()
        response = self.render(request, "login.html", request_language(request.headers.get("accept-language")),
                               status=status, form_token=form_token, next_path=next_path, error=error)
        set_cookie(response, request, FORM_COOKIE, nonce, FORM_SECONDS)
        return response

    async def login_page(self, request: Request,
                         next: Annotated[str | None, Query(max_length=2000)] = None) -> Response:
        if self.session.signed_in(request):
            return RedirectResponse(safe_next(next), status_code=303, headers=HEADERS)
        return self.login_form(request, safe_next(next))

    async def login(self, request: Request) -> Response:
        body = await request.body()
        fields = {k: v[0] for k, v in parse_qs(body[:MAX_FORM_BYTES].decode("utf-8", "replace")).items()}
        next_path = safe_next(fields.get("next"))
        words = LABELS[request_language(request.headers.get("accept-language"))]
        if not self.session.valid_form(fields.get("form_token", ""), request.cookies.get(FORM_COOKIE)):
            return self.login_form(request, next_path, status=400, error=words["expired_form"])
        if not self.session.token_matches(fields.get("token", "").strip()):
            return self.login_form(request, next_path, status=401, error=words["wrong_token"])
        response = RedirectResponse(next_path, status_code=303, headers=HEADERS)
        set_cookie(response, request, SESSION_COOKIE, self.session.new_session(), SESSION_SECONDS)
        clear_cookie(response, request, FORM_COOKIE)
        return response

    async def logout(self, request: Request) -> Response:
        response = RedirectResponse("/ui/login", status_code=303, headers=HEADERS)
        clear_cookie(response, request, SESSION_COOKIE)
        return response

    async def css(self) -> Response:
        return Response(self.stylesheet, media_type="text/css; charset=utf-8",
                        headers={"Cache-Control": "max-age=3600", "X-Content-Type-Options": "nosniff"})

    # ------------------------------------------------------------------ the pages

    async def series_list(self, request: Request) -> Response:
        repository, rows, quotes = self.runtime.repository, [], []
        for series in await repository.list_series():
            ledger = await series_ledger(repository, series.id)
            rows.append(recap.series_row(series.id, series.meetings, ledger, self.clock()))
            quotes += [d.quote for d in ledger.decisions[:20]]
        rows.sort(key=lambda s: (s.latest is not None, s.latest or self.clock()), reverse=True)
        return self.render(request, "series.html", text_language(quotes), series=rows)

    async def meeting(self, request: Request, meeting_id: MeetingId) -> Response:
        try:
            minutes = await stored_or_composed(self.runtime.repository, meeting_id)
        except MeetingNotFoundError:
            return self.not_found(request, meeting_id)
        turns = await self.runtime.repository.get_utterances(meeting_id)
        # A 2,000-line transcript takes milliseconds to lay out and render: off the event loop.
        return await asyncio.to_thread(
            lambda: self.render(request, "meeting.html", minutes.language, **meeting_context(minutes, turns)))

    async def ledger(self, request: Request, series_id: SeriesId,
                     owner: Annotated[str | None, Query(max_length=200)] = None,
                     state: Annotated[str, Query(max_length=10)] = "") -> Response:
        meetings = await self.runtime.repository.list_meetings(series_id=series_id)
        if not meetings:
            return self.not_found(request, series_id)
        ledger = await series_ledger(self.runtime.repository, series_id)
        chosen = state if state in ("open", "due") else None
        view = recap.ledger_view(ledger, meetings, self.clock(), owner=owner or None, state=chosen)
        language = text_language([d.quote for d in ledger.decisions] + [a.quote for a in ledger.actions])
        return self.render(request, "ledger.html", language, series_id=series_id, view=view, owner=owner or "",
                           state=chosen or "")

    async def search(self, request: Request, series_id: SeriesId,
                     q: Annotated[str, Query(max_length=100_000)] = "") -> Response:
        meetings = await self.runtime.repository.list_meetings(series_id=series_id)
        if not meetings:
            return self.not_found(request, series_id)
        query, limit = q.strip(), self.config.max_query_chars
        too_long = len(query) > limit
        found = await search_series(self.runtime, series_id, query, meetings) if query and not too_long else None
        language = text_language([query] if query else [m.title or "" for m in meetings])
        return self.render(request, "search.html", language, status=422 if too_long else 200, series_id=series_id,
                           q=query, found=found, too_long=too_long, limit=limit,
                           memory_on=self.runtime.builder.past is not None)


def mount_ui(app: FastAPI, runtime: AgentRuntime, config: APIConfig, *, clock: Clock = utc_now) -> None:
    """The recap page's routes on `app` (no OpenAPI entries: they answer HTML to a browser)."""
    pages = RecapPages(runtime, config, clock)
    app.add_exception_handler(SignInRequired, pages.to_login)
    signed_in = [Depends(pages.require_session)]
    for path, endpoint, method, guarded in (
        ("/ui/static/ui.css", pages.css, "GET", False),
        ("/ui/login", pages.login_page, "GET", False),
        ("/ui/login", pages.login, "POST", False),
        ("/ui/logout", pages.logout, "GET", False),
        ("/ui/", pages.series_list, "GET", True),
        ("/ui/meetings/{meeting_id}", pages.meeting, "GET", True),
        ("/ui/series/{series_id}/ledger", pages.ledger, "GET", True),
        ("/ui/series/{series_id}/search", pages.search, "GET", True),
    ):
        app.add_api_route(path, endpoint, methods=[method], include_in_schema=False,
                          dependencies=signed_in if guarded else None)


def meeting_context(minutes: Minutes, turns: list[Utterance]) -> dict[str, Any]:
    bars = recap.timeline(minutes)
    return {"m": minutes, "bars": bars, "chart": recap.talk_chart(minutes.participants, minutes.language),
            "lines": recap.transcript(turns, bars, recap.cited_seqs(minutes), minutes.zone)}


async def search_series(runtime: AgentRuntime, series_id: str, query: str,
                        meetings: list[MeetingOverview]) -> recap.SearchView | None:
    """The organisation memory's search over the series' finished meetings (what a call in a
    meeting of the series would find): the closest past topic and the excerpts, each line
    citing its meeting and seq. None when the memory is off."""
    memory = runtime.builder.past
    if memory is None:
        return None
    await memory.sync()
    topics, excerpts = await asyncio.to_thread(memory.search_past, query, series_id=series_id,
                                               exclude_meeting_id="", budget_tokens=SEARCH_BUDGET_TOKENS)
    # MEMORY_SCOPE=organisation searches every series; this page is one series'.
    return recap.search_view([t for t in topics if t.meeting.series_id == series_id],
                             [e for e in excerpts if e.meeting.series_id == series_id], meetings)
