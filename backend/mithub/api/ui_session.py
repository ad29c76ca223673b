"""Who may read the recap page (`/ui/`): the API's bearer token, typed once on the login form,
then an HTTP-only, SameSite=Strict session cookie.

The cookie never holds the token. It holds `issued.signature`, the signature an HMAC-SHA256
of the issue time under a key derived from the token, so a session ends when it is older than
`SESSION_SECONDS` or when API_TOKEN changes. The login form (the page's only POST) carries a
form token: a random nonce, signed the same way, that must match the nonce of a short-lived
SameSite=Strict cookie set with the form (double submit), so another site can neither post
the form nor log a browser into a session of its choosing. Every comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

SESSION_COOKIE = "mithub_ui_session"
FORM_COOKIE = "mithub_ui_form"
SESSION_SECONDS = 12 * 3600
FORM_SECONDS = 3600


def _derive(token: str, purpose: str) -> bytes:
    return hmac.new(token.encode(), f"mithub-ui/{purpose}".encode(), hashlib.sha256).digest()


def _sign(key: bytes, *parts: str) -> str:
    return hmac.new(key, "|".join(parts).encode(), hashlib.sha256).hexdigest()


@dataclass
class UiSession:
    """Signs and checks the session cookie and the login form's token for one API token."""

    token: str
    clock: Callable[[], float] = time.time
    _session_key: bytes = field(init=False, repr=False)
    _form_key: bytes = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._session_key = _derive(self.token, "session")
        self._form_key = _derive(self.token, "login-form")

    # ------------------------------------------------------------------ the token

    def token_matches(self, typed: str) -> bool:
        return hmac.compare_digest(typed.encode(), self.token.encode())

    # ------------------------------------------------------------------ the session cookie

    def new_session(self) -> str:
        issued = str(int(self.clock()))
        return f"{issued}.{_sign(self._session_key, 'session', issued)}"

    def valid_session(self, value: str | None) -> bool:
        issued, _, signature = (value or "").partition(".")
        if not issued.isdigit() or len(issued) > 12:
            return False
        expected = _sign(self._session_key, "session", issued)
        fresh = 0 <= self.clock() - int(issued) <= SESSION_SECONDS
        return hmac.compare_digest(signature.encode(), expected.encode()) and fresh

    def signed_in(self, request: Request) -> bool:
        return self.valid_session(request.cookies.get(SESSION_COOKIE))

    # ------------------------------------------------------------------ the login form's token

    def new_form(self) -> tuple[str, str]:
        """(the nonce for the form cookie, the form token for the hidden field)."""
        nonce, issued = secrets.token_hex(16), str(int(self.clock()))
        return nonce, f"{issued}.{nonce}.{_sign(self._form_key, 'form', issued, nonce)}"

    def valid_form(self, form_token: str, cookie_nonce: str | None) -> bool:
        issued, nonce, signature = (form_token.split(".") + ["", "", ""])[:3]
        if not issued.isdigit() or len(issued) > 12 or not cookie_nonce:
            return False
        expected = _sign(self._form_key, "form", issued, nonce)
        fresh = 0 <= self.clock() - int(issued) <= FORM_SECONDS
        same_browser = hmac.compare_digest(nonce.encode(), cookie_nonce.encode())
        return hmac.compare_digest(signature.encode(), expected.encode()) and same_browser and fresh


def set_cookie(response: Response, request: Request, name: str, value: str, max_age: int) -> None:
    """HTTP-only, SameSite=Strict, limited to the page's path; `Secure` when served over https
    (behind a proxy, uvicorn's --proxy-headers makes the scheme the client's)."""
    response.set_cookie(name, value, max_age=max_age, path="/ui", httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")


def clear_cookie(response: Response, request: Request, name: str) -> None:
    response.delete_cookie(name, path="/ui", httponly=True, samesite="strict",
                           secure=request.url.scheme == "https")
