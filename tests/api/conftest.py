import asyncio
from pathlib import Path

import pytest

from mithub.agent.runtime import open_agent_runtime
from mithub.api.app import create_app
from mithub.cli import main
from mithub.config import APIConfig

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "meetings"
TOKEN = "test-token-0123456789"


@pytest.fixture(scope="session")
def database_url(tmp_path_factory) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('api') / 'mithub.db'}"
    assert main(["replay", str(EXAMPLES / "en_sprint_review.jsonl"), "--meeting-id", "demo-en",
                 "--database-url", url, "--no-progress", "--json"]) == 0
    return url


@pytest.fixture(scope="session")
def app(database_url):
    runtime = asyncio.run(open_agent_runtime(database_url, index_dir=""))
    return create_app(runtime, APIConfig(token=TOKEN))


AUTH = {"Authorization": f"Bearer {TOKEN}"}


DEMO_SERIES = (("ko_product_planning", "demo-ko-1", "2026-05-04T10:00:00+09:00"),
               ("ko_product_planning_2", "demo-ko-2", "2026-05-11T10:00:00+09:00"))


@pytest.fixture(scope="session")
def demo_series_url(tmp_path_factory) -> str:
    """The demo series as `make demo` replays it: the Korean sample meeting and its follow-up a
    week later (which changes two of its decisions), in one SQLite store."""
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('demo-series') / 'mithub.db'}"
    for name, meeting_id, started in DEMO_SERIES:
        assert main(["replay", str(EXAMPLES / f"{name}.jsonl"), "--meeting-id", meeting_id, "--series", "demo-ko",
                     "--started-at", started, "--database-url", url, "--no-progress", "--json"]) == 0
    return url
