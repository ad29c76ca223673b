from pathlib import Path

from mithub.cli.config import env_example

ROOT = Path(__file__).resolve().parents[1]


def test_env_example_lists_every_setting_with_its_default():
    expected = env_example()
    actual = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert actual == expected, "regenerate with: .venv/bin/mithub config env > .env.example"


def test_database_url_can_be_passed_by_name():
    from mithub.config import DatabaseConfig

    assert DatabaseConfig(url="sqlite+aiosqlite:///./x.db").url == "sqlite+aiosqlite:///./x.db"
