"""Noise (issue 19 item 11): no stray library lines, no progress bars in a log that is not a
terminal, a build summary whose shares add up and whose rates are not "0.0 per second"."""

from __future__ import annotations

import re

import pytest
import structlog

from mithub.observability import configure_logging
from mithub.retrieval.profile import BuildProfile
from mithub.retrieval.sparse import SparseIndex


@pytest.fixture(autouse=True)
def _restore_logging():
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


def test_a_sparse_build_prints_no_library_debug_line(capsys):
    configure_logging(level="WARNING")

    SparseIndex.build([["예산", "검토"], ["채용", "계획"], ["budget", "review"]])

    captured = capsys.readouterr()
    assert "Building index" not in captured.err + captured.out


def _stage(profile: BuildProfile, name: str, seconds: float, items: int) -> None:
    from mithub.retrieval.profile import StageTiming

    profile._record(StageTiming(name=name, seconds=seconds, items=items, unit="chunk"))


def test_the_build_summary_shares_add_up_to_100_percent_when_stages_overlapped():
    profile = BuildProfile(progress=False)
    # The dense encoder runs beside reading (a child process): 7.6 + 7.8 + 1.4 s in 11.9 s.
    for name, seconds, items in (("load + chunk", 7.6, 6), ("dense encode", 7.8, 6), ("trigraph encode", 1.4, 69)):
        _stage(profile, name, seconds, items)
    profile._ended = profile._started + 11.9

    summary = profile.summary()

    shares = [int(m) for m in re.findall(r"(\d+)%", summary)]
    assert len(shares) == 3 and abs(sum(shares) - 100) <= 1
    assert "16.8 s of stage time" in summary and "11.9" in summary


def test_slow_rates_are_never_printed_as_zero():
    from mithub.retrieval.profile import per_second, rate_text

    assert per_second(6, 240.0, "documents") == "40.0 s per document"
    assert per_second(500, 12.1, "documents") == "41.3 documents/s"
    assert rate_text(0.012) == "0.012" and rate_text(18608.3) == "18608"
    profile = BuildProfile(progress=False)
    _stage(profile, "dense encode", 400.0, 3)
    profile._ended = profile._started + 400.0
    assert " 0.0 " not in profile.summary() and "0.0075" in profile.summary()


def test_progress_bars_stay_off_when_stderr_is_not_a_terminal():
    # pytest captures stderr: like a log file or a pipe, it is no terminal.
    bar = BuildProfile(progress=True).bar("dense encode", 10, "chunk")
    assert bar.disable
    bar.close()


def test_a_replay_into_a_log_shows_no_progress_bar(tmp_path, capsys):
    from mithub.cli import main
    from mithub_meetings import sample_meeting_file

    transcript = sample_meeting_file(tmp_path / "short.jsonl", lines=12)

    assert main(["replay", str(transcript)]) == 0

    err = capsys.readouterr().err
    assert "\r" not in err and "%|" not in err and "\x1b[" not in err
