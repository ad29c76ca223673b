"""HTTP API (FastAPI): agent calls, meetings, transcripts, health and metrics.

Every route but /healthz and the API's own description (/docs, /openapi.json: no meeting data)
needs `Authorization: Bearer <API_TOKEN>`. Meeting state is restored from the store, so the API
answers about meetings a worker is still ingesting. A request the API refuses gets a short
`detail`: a validation error never echoes the input back.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

from mithub import __version__
from mithub.agent.answer import Answer
from mithub.agent.decision_watch import series_ledger
from mithub.agent.registry import UnknownMeetingError
from mithub.agent.runtime import AgentRuntime
from mithub.api.ui import mount_ui
from mithub.clock import on_meeting_clock
from mithub.config import APIConfig
from mithub.context.models import AgentCallType, Utterance
from mithub.context.report import meeting_report
from mithub.record.ledger import actions_document, decisions_document
from mithub.errors import MeetingNotFoundError, QueryTooLongError, StoreError
from mithub.minutes.compose import stored_or_composed
from mithub.minutes.render import to_markdown
from mithub.store.records import MeetingOverview, SeriesOverview

_bearer = HTTPBearer(auto_error=False)
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
MeetingId = Annotated[str, Path(pattern=r"^[A-Za-z0-9._:-]{1,200}$", description="meeting id")]
SeriesId = Annotated[str, Path(min_length=1, max_length=200, description="series id")]


class CallRequest(BaseModel):
    call_type: AgentCallType
    # Its length is checked against API_MAX_QUERY_CHARS by the route (the CLI's limit too).
    query: str | None = Field(None, description="the question; optional for SUMMARY and ACTION_EXTRACTION")
    include_context: bool = Field(False, description="return the evidence items put into the prompt "
                                  "(`context`), for debugging and evaluation")


class Health(BaseModel):
    status: str
    database: str
    version: str = __version__


def create_app(runtime: AgentRuntime, config: APIConfig) -> FastAPI:
    token = config.required_token()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await runtime.aclose()

    app = FastAPI(title="MitHub API", version=__version__, lifespan=lifespan, redoc_url=None)
    def authorized(credentials: Credentials) -> None:
        if credentials is None or not hmac.compare_digest(credentials.credentials.encode(), token.encode()):
            raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing or wrong bearer token",
                                headers={"WWW-Authenticate": "Bearer"})

    auth = [Depends(authorized)]

    @app.exception_handler(UnknownMeetingError)
    async def _unknown(_request: Request, exc: UnknownMeetingError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=404)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        # FastAPI's default body repeats each invalid input, whatever its size.
        detail = [{k: v for k, v in error.items() if k in ("type", "loc", "msg")} for error in exc.errors()]
        return JSONResponse({"detail": detail}, status_code=422)

    @app.exception_handler(QueryTooLongError)
    async def _too_long(_request: Request, exc: QueryTooLongError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(StoreError)
    async def _store(_request: Request, exc: StoreError) -> JSONResponse:
        return JSONResponse({"detail": f"store unavailable: {exc}"}, status_code=503)

    @app.get("/healthz", response_model=Health)
    async def healthz() -> Health:
        try:
            await runtime.repository.list_meetings()
            database = "ok"
        except Exception:  # health reports, it never fails
            database = "unreachable"
        return Health(status="ok" if database == "ok" else "degraded", database=database)

    @app.get("/metrics", dependencies=auth, response_class=PlainTextResponse)
    async def metrics() -> PlainTextResponse:
        from mithub.observability import METRICS_CONTENT_TYPE, render_metrics

        return PlainTextResponse(render_metrics().decode(), media_type=METRICS_CONTENT_TYPE)

    @app.get("/v1/meetings", dependencies=auth, response_model=list[MeetingOverview])
    async def list_meetings(
        series: Annotated[str | None, Query(max_length=200, description="only this series")] = None,
    ) -> list[MeetingOverview]:
        return await runtime.repository.list_meetings(series_id=series)

    @app.get("/v1/series", dependencies=auth, response_model=list[SeriesOverview])
    async def list_series() -> list[SeriesOverview]:
        """Every series (a team's recurring meeting) with its meetings, dates and titles."""
        return await runtime.repository.list_series()

    @app.get("/v1/series/{series_id}/decisions", dependencies=auth)
    async def series_decisions(series_id: SeriesId, candidates: bool = False) -> dict[str, Any]:
        """The series' decisions (active, or changed with a link to the change) and the
        changes made to them, in the shape of `mithub decisions --json`; `?candidates=true`
        adds the decisions and changes below the models' confidence thresholds."""
        return decisions_document(await series_ledger(runtime.repository, series_id), candidates=candidates)

    @app.get("/v1/series/{series_id}/actions", dependencies=auth)
    async def series_actions(series_id: SeriesId, candidates: bool = False) -> dict[str, Any]:
        """The series' action items across meetings (`mithub actions --json`); `?candidates=true`
        adds the items below the model's confidence threshold."""
        return actions_document(await series_ledger(runtime.repository, series_id), candidates=candidates)

    @app.get("/v1/meetings/{meeting_id}", dependencies=auth)
    async def show_meeting(meeting_id: MeetingId) -> dict[str, Any]:
        session = await runtime.registry.get(meeting_id)
        info = await runtime.repository.meeting_info(meeting_id)
        identity = info.model_dump(mode="json", include={"series_id", "title", "started_at", "ended_at", "timezone"}) \
            if info else {}
        return {**meeting_report(session.manager), **identity}

    @app.get("/v1/meetings/{meeting_id}/minutes", dependencies=auth, responses={
        200: {"content": {"application/json": {}, "text/markdown": {}}}, 404: {"description": "unknown meeting"}})
    async def minutes(meeting_id: MeetingId, request: Request) -> Response:
        """The meeting's minutes (`mithub minutes`): JSON, or Markdown with `Accept: text/markdown`."""
        try:
            found = await stored_or_composed(runtime.repository, meeting_id)
        except MeetingNotFoundError as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from exc
        accept = request.headers.get("accept", "")
        if "text/markdown" in accept and "application/json" not in accept:
            return PlainTextResponse(to_markdown(found), media_type="text/markdown; charset=utf-8")
        return JSONResponse(found.model_dump(mode="json"))

    @app.get("/v1/meetings/{meeting_id}/transcript", dependencies=auth, response_model=list[Utterance])
    async def transcript(
        meeting_id: MeetingId,
        after_seq: Annotated[int, Query(ge=0, le=2**31)] = 0,
        limit: Annotated[int, Query(ge=1, le=1000)] = 200,
    ) -> list[Utterance]:
        if await runtime.repository.last_seq(meeting_id) == 0:
            raise UnknownMeetingError(meeting_id)
        turns = await runtime.repository.get_utterances(meeting_id, after_seq=after_seq, limit=limit)
        info = await runtime.repository.meeting_info(meeting_id)
        for turn in turns:  # each time with the meeting's offset, as everything of a meeting
            on_meeting_clock(turn, info.zone if info else "UTC")
        return turns

    @app.post("/v1/meetings/{meeting_id}/calls", dependencies=auth, response_model=Answer,
              response_model_exclude_none=False)
    async def call(meeting_id: MeetingId, request: CallRequest) -> JSONResponse:
        QueryTooLongError.check(request.query, config.max_query_chars)
        session = await runtime.registry.get(meeting_id)
        answer = await runtime.pipeline.call(session, request.call_type, request.query, source="http",
                                             include_context=request.include_context)
        # `context` is there only when asked for: absent, not null, otherwise.
        body = answer.model_dump(mode="json", exclude={"context"} if answer.context is None else set())
        return JSONResponse(body)

    mount_ui(app, runtime, config)  # the recap page, /ui/
    return app
