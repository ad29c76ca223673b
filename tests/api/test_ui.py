"""The recap page (/ui/) over the demo series: the login (the API token once, then a session
cookie), each page's items, the ledger's filters, the memory search, and meeting text shown
as text whatever it holds."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import httpx
import pytest

from mithub.agent.decision_watch import series_ledger
from mithub.agent.runtime import open_agent_runtime
from mithub.api.app import create_app
from mithub.api.recap import ledger_view
from mithub.api.ui_session import SESSION_COOKIE, SESSION_SECONDS, UiSession
from mithub.config import APIConfig
from mithub.context.models import Utterance

from .conftest import TOKEN

PAGES = ["/ui/", "/ui/meetings/demo-ko-2", "/ui/series/demo-ko/ledger", "/ui/series/demo-ko/search?q=GPU"]


async def open_client(url: str, token: str = TOKEN, base_url: str = "http://test"):
    runtime = await open_agent_runtime(url, index_dir="")
    app = create_app(runtime, APIConfig(token=token))
    return runtime, httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base_url)


@pytest.fixture
async def client(demo_series_url):
    runtime, http = await open_client(demo_series_url)
    async with http:
        yield http
    await runtime.aclose()


async def log_in(client: httpx.AsyncClient, token: str = TOKEN, next_path: str = "/ui/") -> httpx.Response:
    form = await client.get("/ui/login", params={"next": next_path})
    assert form.status_code == 200
    form_token = re.search(r'name="form_token" value="([^"]+)"', form.text).group(1)
    return await client.post("/ui/login", data={"token": token, "form_token": form_token, "next": next_path})


def anchors(html: str) -> set[int]:
    return {int(n) for n in re.findall(r'id="t-(\d+)"', html)}


async def test_every_page_redirects_to_the_login_without_a_session(client):
    for path in PAGES:
        response = await client.get(path)
        assert response.status_code == 303, path
        assert response.headers["location"].startswith("/ui/login?next=%2Fui%2F"), path
    client.cookies.set(SESSION_COOKIE, "1.forged", domain="test", path="/ui")
    assert (await client.get("/ui/")).status_code == 303
    assert (await client.get("/ui/static/ui.css")).status_code == 200  # no meeting data in it


async def test_the_login_sets_an_http_only_strict_session_cookie_without_the_token(client):
    response = await log_in(client, next_path="/ui/meetings/demo-ko-2")
    assert response.status_code == 303 and response.headers["location"] == "/ui/meetings/demo-ko-2"
    cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith(SESSION_COOKIE))
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/ui" in cookie
    assert TOKEN not in cookie
    for path in PAGES:
        assert (await client.get(path)).status_code == 200, path
    assert (await client.get("/ui/logout")).status_code == 303
    assert (await client.get("/ui/")).status_code == 303


async def test_a_wrong_token_or_a_form_from_elsewhere_is_refused(client):
    wrong = await log_in(client, token="not-the-token")
    assert wrong.status_code == 401
    assert not any(c.startswith(SESSION_COOKIE) for c in wrong.headers.get_list("set-cookie"))
    assert (await client.get("/ui/")).status_code == 303
    # The right token without the form's token (a post from another site) is refused too.
    forged = await client.post("/ui/login", data={"token": TOKEN, "form_token": "1.2.3", "next": "/ui/"})
    assert forged.status_code == 400
    assert (await client.get("/ui/")).status_code == 303
    # After the login, only a page of /ui/ is a place to go back to.
    assert (await log_in(client, next_path="https://elsewhere.example/")).headers["location"] == "/ui/"


async def test_a_session_of_another_token_is_refused(demo_series_url):
    runtime, other = await open_client(demo_series_url, token="another-token-0123456789")
    async with other:
        assert (await log_in(other, token="another-token-0123456789")).status_code == 303
        session = other.cookies.get(SESSION_COOKIE)
    await runtime.aclose()
    runtime, http = await open_client(demo_series_url)
    async with http:
        http.cookies.set(SESSION_COOKIE, session, domain="test", path="/ui")
        assert (await http.get("/ui/")).status_code == 303
    await runtime.aclose()


def test_a_session_ends_after_twelve_hours_or_with_another_token():
    now = [1_800_000_000.0]
    session = UiSession("token-a-0123456789", clock=lambda: now[0])
    value = session.new_session()
    issued, signature = value.split(".")
    assert session.valid_session(value) and "token-a" not in value
    assert not session.valid_session(f"{int(issued) + 3600}.{signature}")  # a later time, same signature
    assert not UiSession("token-b-0123456789", clock=lambda: now[0]).valid_session(value)
    now[0] += SESSION_SECONDS + 1
    assert not session.valid_session(value)


async def test_the_cookies_are_secure_over_https(demo_series_url):
    runtime, http = await open_client(demo_series_url, base_url="https://test")
    async with http:
        cookies = (await log_in(http)).headers.get_list("set-cookie")
        assert (await http.get("/ui/")).status_code == 200
    await runtime.aclose()
    assert all("Secure" in c for c in cookies) and len(cookies) == 2


async def test_series_list_shows_the_meetings_by_date_with_their_counts(client):
    await log_in(client)
    html = (await client.get("/ui/")).text
    assert '<html lang="ko">' in html and 'name="viewport"' in html
    rows = re.findall(r'<tr class="meeting-row" id="meeting-([^"]+)">\s*<td class="when">([^<]+)</td>.*?'
                      r'class="num decisions">(\d+)<.*?class="num open-actions">(\d+)<', html, re.S)
    assert [r[0] for r in rows] == ["demo-ko-2", "demo-ko-1"]  # newest first
    assert [r[1] for r in rows] == ["2026-05-11 10:00 +09:00", "2026-05-04 10:00 +09:00"]  # the meeting's clock
    assert all(int(r[2]) > 0 for r in rows)
    assert 'href="/ui/series/demo-ko/ledger"' in html


async def test_meeting_page_shows_timeline_talk_time_decisions_actions_and_linked_transcript(client):
    await log_in(client)
    response = await client.get("/ui/meetings/demo-ko-2")
    html = response.text
    assert response.status_code == 200 and "script-src" not in response.headers["content-security-policy"]
    assert html.count('<svg class="span"') >= 3  # a bar per topic
    assert re.search(r'<rect class="c0" x="0\.0" y="0" width="[\d.]+"', html)
    assert all(name in html for name in ("김지현", "박서준", "이수민", "최민호"))
    assert html.count('<g class="talk-bar">') == 4
    # The GPU servers: 4 in the first meeting, 3 in this one, linked to the first meeting's line.
    decisions = html[html.index('<section id="decisions">'):html.index('<section id="actions">')]
    change = re.search(r'<div class="change">(.*?)</div>', decisions[decisions.index("3대로 가는"):], re.S).group(1)
    assert '<span class="old-value">4대' in change and '<span class="new-value">3대' in change
    assert 'href="/ui/meetings/demo-ko-1#t-66"' in change
    assert re.search(r'<b class="owner">박서준</b>: [^<]*3대 기준으로 최종 견적', html)
    lines = anchors(html)
    assert len(lines) == 112
    cited = {int(n) for n in re.findall(r'href="#t-(\d+)"', html)}
    assert cited <= lines and len(cited) > 20
    assert anchors((await client.get("/ui/meetings/demo-ko-1")).text) >= {66, 100}
    assert (await client.get("/ui/meetings/nobody")).status_code == 404


async def test_ledger_shows_each_change_with_both_quotes(client):
    await log_in(client)
    html = (await client.get("/ui/series/demo-ko/ledger")).text
    changed = re.findall(r'<li class="decision changed">(.*?)</li>', html, re.S)
    assert len(changed) == 2
    gpu = next(c for c in changed if "4대" in c)
    assert 'href="/ui/meetings/demo-ko-1#t-66"' in gpu and 'href="/ui/meetings/demo-ko-2#t-62"' in gpu
    assert '<span class="new-value">3대' in gpu


async def test_ledger_filters_action_items_by_owner(client):
    await log_in(client)
    everyone = (await client.get("/ui/series/demo-ko/ledger")).text
    owners = re.findall(r'<b class="owner">([^<]+)</b>', everyone)
    assert {"박서준", "이수민", "김지현"} <= set(owners)
    html = (await client.get("/ui/series/demo-ko/ledger", params={"owner": "박서준"})).text
    kept = re.findall(r'<b class="owner">([^<]+)</b>', html)
    assert kept and set(kept) == {"박서준"} and len(kept) == owners.count("박서준")
    assert '<option value="박서준" selected>' in html
    assert 'href="/ui/meetings/demo-ko-1#t-' in html and 'href="/ui/meetings/demo-ko-2#t-' in html


async def test_open_and_due_are_counted_on_each_meetings_calendar(demo_series_url):
    runtime = await open_agent_runtime(demo_series_url, index_dir="")
    ledger = await series_ledger(runtime.repository, "demo-ko")
    meetings = await runtime.repository.list_meetings(series_id="demo-ko")
    await runtime.aclose()
    # 2026-05-12 00:30 in Seoul is still the 11th in UTC: the 12 May items are due in Seoul.
    now = datetime(2026, 5, 11, 15, 30, tzinfo=timezone.utc)
    due = ledger_view(ledger, meetings, now, state="due").actions
    open_ = ledger_view(ledger, meetings, now, state="open").actions
    assert len(due) + len(open_) == len(ledger.actions)
    assert any(str(a.action.due_date) == "2026-05-12" for a in due)
    assert all(a.action.due_date is None or str(a.action.due_date) > "2026-05-12" for a in open_)
    later = ledger_view(ledger, meetings, now + timedelta(days=365), state="open").actions
    assert all(a.action.due_date is None for a in later)


async def test_search_quotes_the_series_with_links_to_the_lines(client):
    await log_in(client)
    html = (await client.get("/ui/series/demo-ko/search", params={"q": "GPU 서버는 몇 대로 하기로 했죠?"})).text
    links = re.findall(r'<a class="cite" href="/ui/meetings/(demo-ko-\d)#t-(\d+)"', html)
    assert links and "GPU" in html
    too_long = await client.get("/ui/series/demo-ko/search", params={"q": "가" * 2001})
    assert too_long.status_code == 422 and "API_MAX_QUERY_CHARS" in too_long.text


async def test_meeting_text_is_shown_as_text(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'mithub.db'}"
    runtime, http = await open_client(url)
    start = datetime(2026, 5, 4, 1, 0, tzinfo=timezone.utc)
    await runtime.repository.ensure_meeting("xss-1", title="<b>title</b>", series_id="xss", started_at=start,
                                            timezone="Asia/Seoul")
    said = ["<script>alert(1)</script>", "좋습니다. \"<img src=x onerror=alert(2)>\" 로 하겠습니다."]
    await runtime.repository.append_utterances("xss-1", [
        Utterance(id=i + 1, speaker_id="s1", speaker_name="<i>김지현</i>", text=text,
                  absolute_timestamp=start + timedelta(seconds=10 * i), start_ms=10_000 * i, end_ms=10_000 * i + 4000)
        for i, text in enumerate(said)])
    async with http:
        await log_in(http)
        html = (await http.get("/ui/meetings/xss-1")).text
    await runtime.aclose()
    assert "<script>" not in html and "<img" not in html and "<i>" not in html and "<b>title" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(2)&gt;" in html and "&lt;i&gt;김지현&lt;/i&gt;" in html
    assert re.search(r'id="t-1"><a class="time" href="#t-1">10:00:00</a>', html)  # Seoul's clock


async def test_an_english_meeting_reads_in_english(database_url):
    runtime, http = await open_client(database_url)
    async with http:
        await log_in(http)
        html = (await http.get("/ui/meetings/demo-en")).text
    await runtime.aclose()
    assert '<html lang="en">' in html
    assert "<h2>Topic timeline</h2>" in html and "<h2>Talk time</h2>" in html and "<h2>Transcript</h2>" in html
    assert len(anchors(html)) == 82
