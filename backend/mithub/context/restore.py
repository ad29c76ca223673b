"""The restore half of the ContextManager: rebuild memory from the repository.

1. Load the last saved state (written with every L1 change) and all segments.
2. Rebuild L0, the topic buffer, speaker buffers and the detector window from stored turns
   up to the state's `last_seq`, labelled with the topic each turn belongs to.
3. Run the turns stored after that state through the normal pipeline. None of them changed
   L1 when first ingested (that change would have saved a newer state) unless the process
   died between storing a turn and saving its L1 update; then the deterministic pipeline
   makes the same update again. Either way the result equals a manager that never stopped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import structlog

from mithub.context.models import TopicSegment, Utterance
from mithub.context.repository import STATE_FORMAT_VERSION, ManagerState, MeetingRepository
from mithub.errors import StoreError

if TYPE_CHECKING:
    from mithub.context.manager import ContextManager

logger = structlog.get_logger(__name__)


def _label(
    utterances: list[Utterance], segments: list[TopicSegment], state: ManagerState
) -> list[Utterance]:
    labelled = []
    for u in utterances:
        if u.id >= state.topic_start_seq:
            topic, topic_id = state.current_topic, state.current_topic_id
        else:
            owner = next((s for s in segments if s.start_utterance_id <= u.id <= s.end_utterance_id), None)
            topic, topic_id = (owner.name, owner.id) if owner else (u.topic, u.topic_id)
        labelled.append(u if (u.topic, u.topic_id) == (topic, topic_id)
                        else u.model_copy(update={"topic": topic, "topic_id": topic_id}))
    return labelled


def _apply_state(manager: ContextManager, state: ManagerState, segments: list[TopicSegment]) -> None:
    if state.format_version != STATE_FORMAT_VERSION:
        raise StoreError(
            f"meeting {state.meeting_id}: saved state format {state.format_version} is not "
            f"{STATE_FORMAT_VERSION}; run `mithub db upgrade` with the matching version"
        )
    manager.l1_segments = segments
    manager.current_topic = state.current_topic
    manager.current_topic_id = state.current_topic_id
    manager._topic_index = state.topic_index
    manager._topic_start_seq = state.topic_start_seq
    manager._topic_buffer_start_seq = state.topic_buffer_start_seq
    manager._last_summarized_utterance_id = state.last_summarized_seq
    manager._turn_count_since_l1 = state.turn_count_since_l1
    manager._last_l1_update = state.last_l1_update
    manager._l1_update_count = state.l1_update_count
    manager._next_seq = state.last_seq + 1


async def _rebuild_windows(
    manager: ContextManager, repository: MeetingRepository, state: ManagerState,
    segments: list[TopicSegment],
) -> None:
    meeting_id, until = manager.meeting_id, state.last_seq
    cfg = manager.config
    recent = await repository.get_last_utterances(meeting_id, cfg.l0_max_turns, until_seq=until)
    manager.l0_buffer.replace(_label(recent, segments, state))
    topic_turns = await repository.get_utterances(
        meeting_id, after_seq=state.topic_buffer_start_seq - 1, until_seq=until
    )
    manager.l0_topic_buffer.replace(_label(topic_turns[-cfg.l0_topic_buffer_max_turns:], segments, state))

    history = await repository.get_last_utterances(
        meeting_id, manager._detector.history_turns, until_seq=until
    )
    manager._detector.load_state(state.detector_state, history)

    per_speaker: list[Utterance] = []
    for speaker_id in await repository.get_speaker_ids(meeting_id, until_seq=until):
        per_speaker += await repository.get_last_utterances(
            meeting_id, cfg.speaker_buffer_max_per_speaker, until_seq=until, speaker_id=speaker_id
        )
    per_speaker.sort(key=lambda u: u.id)
    manager.speaker_context.load_state(state.speaker_state, _label(per_speaker, segments, state))


async def restore_manager(manager: ContextManager, repository: MeetingRepository) -> int:
    meeting_id = manager.meeting_id
    stored = await repository.last_seq(meeting_id)
    if stored == 0:
        return 0
    state, segments = await repository.load_state(meeting_id)
    base = 0
    if state is not None:
        _apply_state(manager, state, segments)
        await _rebuild_windows(manager, repository, state, segments)
        base = state.last_seq
    tail = await repository.get_utterances(meeting_id, after_seq=base)
    for utterance in tail:
        manager._next_seq = utterance.id + 1
        await manager._process(utterance, utterance.absolute_timestamp)
    logger.info("meeting_restored", meeting_id=meeting_id, utterances=stored,
                segments=len(manager.l1_segments), replayed=len(tail), topic=manager.current_topic)
    return stored
