"""ContextManager.finalize at the end of a live meeting: the topic detector decides the turns
still waiting for their lookahead (as batch `mithub segment` does), so a topic that starts in
the last ~20 turns gets its own segment; and finalizing twice changes nothing."""

from pathlib import Path

from mithub.clock import ManualClock
from mithub.config import ContextConfig
from mithub.context.factory import create_context_manager
from mithub.context.models import Utterance
from mithub.context.report import meeting_report
from mithub.context.transcript import DEFAULT_MEETING_START, read_transcript
from mithub.jsonl import LineErrors
from mithub.store.memory import InMemoryRepository
from mithub.topics.detector import TopicDetector, detect_boundaries

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "meetings"
# The detector places a boundary at #66 of its 82 turns only once the meeting is over.
MEETING = EXAMPLES / "en_sprint_review.jsonl"


def _lines():
    return [line for _, line in read_transcript(MEETING, LineErrors())]


async def _batch_boundaries(embedder, lines) -> tuple[list[int], int]:
    """Seqs where `mithub segment` starts a topic (finish included), and the lookahead."""
    detector = TopicDetector(ContextConfig(), embedder)
    turns = [Utterance(id=seq, **line.model_dump()) for seq, line in enumerate(lines, start=1)]
    changes = await detect_boundaries(detector, turns)
    return [change.boundary_seq for change in changes], detector.lookahead


def _manager(repository, clock, embedder):
    return create_context_manager("m1", repository, config=ContextConfig(), embedder=embedder,
                                  clock=clock)


async def _feed(manager, clock, lines):
    for line in lines:
        clock.set(line.absolute_timestamp)
        await manager.add_utterance(line)


async def _live(embedder, lines):
    repository, clock = InMemoryRepository(), ManualClock(DEFAULT_MEETING_START)
    manager = _manager(repository, clock, embedder)
    await _feed(manager, clock, lines)
    await manager.finalize()
    return manager, repository


async def test_a_topic_starting_in_the_last_turns_gets_its_segment_as_in_batch(embedder):
    lines = _lines()
    batch, lookahead = await _batch_boundaries(embedder, lines)
    assert any(seq > len(lines) - lookahead for seq in batch), "the meeting no longer tests the end"

    manager, repository = await _live(embedder, lines)

    segments = manager.get_l1_segments()
    assert [s.start_utterance_id for s in segments] == [1, *batch]
    assert [s.end_utterance_id for s in segments] == [*(seq - 1 for seq in batch), len(lines)]
    assert len({s.id for s in segments}) == len(segments)
    _state, stored = await repository.load_state("m1")
    assert stored == segments
    assert manager.current_topic_id == segments[-1].id


async def test_a_meeting_restored_after_a_crash_finalizes_the_same(embedder):
    lines = _lines()
    reference, reference_repository = await _live(embedder, lines)

    # 40: mid-meeting; 70: inside the last boundary's lookahead; 82: every turn in, no finalize
    for stop, warm in ((40, True), (70, True), (len(lines), True), (len(lines), False)):
        repository, clock = InMemoryRepository(), ManualClock(DEFAULT_MEETING_START)
        await _feed(_manager(repository, clock, embedder), clock, lines[:stop])
        restored = _manager(repository, clock, embedder)
        assert await restored.restore_from_db(warm_detector=warm) == stop
        await _feed(restored, clock, lines[stop:])
        await restored.finalize()
        assert meeting_report(restored) == meeting_report(reference), f"stopped after {stop}"
        assert await repository.load_state("m1") == await reference_repository.load_state("m1")


async def test_finalize_twice_adds_no_segment(embedder):
    lines = _lines()
    manager, repository = await _live(embedder, lines)
    segments, commits = manager.get_l1_segments(), repository.commits

    again = await manager.finalize()

    assert again == segments[-1]
    assert manager.get_l1_segments() == segments
    assert repository.commits == commits
    _state, stored = await repository.load_state("m1")
    assert stored == segments

    # a manager restored from the finished meeting (a crash after finalize) ends the same
    clock = ManualClock(DEFAULT_MEETING_START)
    restored = _manager(repository, clock, embedder)
    await restored.restore_from_db()
    await restored.finalize()
    assert restored.get_l1_segments() == segments
    assert repository.commits == commits
