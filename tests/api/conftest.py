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
