"""Which routes answer without the token (issue 19 item 12): /healthz and the API's own
description (/docs, /openapi.json), nothing else, as the README says. The recap page's own
login, logout and stylesheet (no meeting data) answer too; its other pages send the browser to
the login (303)."""

from __future__ import annotations

import re

import httpx

from mithub.api.app import create_app
from mithub.config import APIConfig

OPEN = {"/healthz", "/docs", "/openapi.json", "/docs/oauth2-redirect"}
UI_OPEN = {"/ui/login", "/ui/logout", "/ui/static/ui.css"}


async def test_only_health_and_the_api_description_answer_without_a_token():
    app = create_app(None, APIConfig(token="t" * 32))  # type: ignore[arg-type] - refused before use
    paths = {route.path for route in app.routes}
    assert OPEN <= paths and "/redoc" not in paths

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        for path in ("/docs", "/openapi.json"):
            assert (await http.get(path)).status_code == 200
        for route in app.routes:
            if route.path in OPEN | UI_OPEN:
                continue
            url = re.sub(r"\{[^}]+\}", "x", route.path)
            for method in sorted(route.methods - {"HEAD"}):
                response = await http.request(method, url)
                if route.path.startswith("/ui/"):
                    assert response.status_code == 303, (method, route.path)
                    assert response.headers["location"].startswith("/ui/login?"), route.path
                else:
                    assert response.status_code == 401, (method, route.path)
