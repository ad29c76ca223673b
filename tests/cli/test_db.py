"""`mithub db current|upgrade`: a read-only command writes nothing (issue 19 item 10)."""

from __future__ import annotations

from mithub.cli import main
from mithub.store.migrate import head_revision


def test_db_current_on_a_missing_sqlite_file_says_so_and_creates_nothing(tmp_path, capsys):
    target = tmp_path / "nowhere" / "mithub.db"
    assert main(["db", "current", "--database-url", f"sqlite+aiosqlite:///{target}"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no database at" in err and str(target) in err
    assert list(tmp_path.iterdir()) == []  # neither the file nor its folder


def test_db_current_reads_what_db_upgrade_made(tmp_path, capsys):
    url = f"sqlite+aiosqlite:///{tmp_path / 'mithub.db'}"
    assert main(["db", "current", "--database-url", url]) == 1
    capsys.readouterr()
    assert main(["db", "upgrade", "--database-url", url]) == 0
    assert f"upgraded from empty to {head_revision()}" in capsys.readouterr().out
    assert main(["db", "current", "--database-url", url]) == 0
    assert f"revision {head_revision()} (up to date)" in capsys.readouterr().out
