import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from mithub.api.app import create_app
from mithub.config import APIConfig
from mithub.errors import ConfigError

from .conftest import AUTH


@pytest.fixture
async def client(app):
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


async def test_health_needs_no_token(client):
    response = await client.get("/healthz")
    assert response.status_code == 200 and response.json()["database"] == "ok"


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic abc"}])
@pytest.mark.parametrize("path", ["/v1/meetings", "/v1/meetings/demo-en", "/metrics"])
async def test_everything_else_needs_the_token(client, headers, path):
    response = await client.get(path, headers=headers)
    assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"


async def test_meetings_list_show_and_transcript(client):
    listed = (await client.get("/v1/meetings", headers=AUTH)).json()
    assert [m["id"] for m in listed] == ["demo-en"]
    shown = (await client.get("/v1/meetings/demo-en", headers=AUTH)).json()
    assert shown["utterance_count"] == listed[0]["utterance_count"] and shown["topics"]
    assert {s["role"] for s in shown["speakers"]} >= {"facilitator", "observer"}
    page = (await client.get("/v1/meetings/demo-en/transcript?after_seq=10&limit=5", headers=AUTH)).json()
    assert [u["id"] for u in page] == [11, 12, 13, 14, 15]


async def test_agent_call_answers_with_mode_and_citations(client):
    response = await client.post("/v1/meetings/demo-en/calls", headers=AUTH,
                                 json={"call_type": "IMMEDIATE_RESPONSE", "query": "Who owns the on-call rotation?"})
    assert response.status_code == 200
    answer = response.json()
    assert answer["mode"] in ("template", "retrieval_only") and answer["citations"]
    assert answer["call_type"] == "IMMEDIATE_RESPONSE" and answer["context_tokens"] > 0


@pytest.mark.parametrize(
    ("method", "path", "body", "expected"),
    [
        ("post", "/v1/meetings/demo-en/calls", {"call_type": "GOSSIP"}, 422),
        ("post", "/v1/meetings/demo-en/calls", {"call_type": "SEARCH", "query": "x" * 2001}, 422),
        ("post", "/v1/meetings/demo-en/calls", {"query": "no type"}, 422),
        ("post", "/v1/meetings/nobody/calls", {"call_type": "SUMMARY"}, 404),
        ("get", "/v1/meetings/nobody", None, 404),
        ("get", "/v1/meetings/bad%20id!", None, 422),
        ("get", "/v1/meetings/demo-en/transcript?after_seq=-1", None, 422),
    ],
)
async def test_bad_requests_get_clear_4xx(client, method, path, body, expected):
    response = await client.request(method, path, headers=AUTH, json=body)
    assert response.status_code == expected
    assert response.json()["detail"]


def test_the_api_refuses_to_start_without_a_token(app):
    with pytest.raises(ConfigError, match="API_TOKEN"):
        create_app(None, APIConfig(token=""))  # type: ignore[arg-type]


def test_no_generated_request_gets_a_server_error(app):
    """Schemathesis generates requests from the OpenAPI schema for every operation."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 6

    for operation in operations:
        @given(case=operation.as_strategy())
        @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
        def check(case):
            case.headers = {**(case.headers or {}), **AUTH}
            response = case.call()
            assert response.status_code < 500, (case.path, response.text)

        check()


async def test_series_list_their_meetings_with_dates(client):
    series = (await client.get("/v1/series", headers=AUTH)).json()
    assert [s["id"] for s in series] == ["demo-en"]
    (meeting,) = series[0]["meetings"]
    assert meeting["id"] == "demo-en" and meeting["series_id"] == "demo-en"
    assert meeting["started_at"] and meeting["ended_at"] and meeting["title"] == "en_sprint_review.jsonl"
    listed = (await client.get("/v1/meetings?series=demo-en", headers=AUTH)).json()
    assert [m["id"] for m in listed] == ["demo-en"]
    assert (await client.get("/v1/meetings?series=nobody", headers=AUTH)).json() == []
    shown = (await client.get("/v1/meetings/demo-en", headers=AUTH)).json()
    assert shown["series_id"] == "demo-en" and shown["started_at"] and shown["ended_at"]
    assert (await client.get("/v1/series")).status_code == 401


async def test_include_context_returns_what_the_model_saw_and_is_absent_otherwise(client):
    body = {"call_type": "IMMEDIATE_RESPONSE", "query": "What is the p95 latency target?"}
    plain = (await client.post("/v1/meetings/demo-en/calls", json=body, headers=AUTH)).json()
    assert "context" not in plain
    shown = (await client.post("/v1/meetings/demo-en/calls", json={**body, "include_context": True},
                               headers=AUTH)).json()
    items = shown["context"]
    assert items and {i["kind"] for i in items} <= {"utterance", "topic", "document"}
    assert set(items[0]) == {"kind", "meeting_id", "seq", "speaker", "time", "quote", "tokens"}
    turns = [i for i in items if i["kind"] == "utterance"]
    assert turns and all(i["meeting_id"] == "demo-en" and i["seq"] >= 1 and i["speaker"] for i in turns)
    assert 0 < sum(i["tokens"] for i in items) <= shown["context_tokens"]
