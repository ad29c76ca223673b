"""The restore half of the ContextManager: read what a meeting's memory is rebuilt from.

1. Load the last saved state (written with every L1 change) and all segments.
2. Read the stored turns L0, the topic buffer, the speaker buffers and the detector window
   need, up to the state's `last_seq`, labelled with the topic each turn belongs to.
3. Read the turns stored after that state (the tail). The manager runs them through its normal
   pipeline: none of them changed L1 when first ingested (that change would have saved a newer
   state) unless the process died between storing a turn and saving its L1 update; then the
   deterministic pipeline makes the same update again. Either way the result equals a manager
   that never stopped.

This module only reads: it returns a `StoredMeeting` and never touches a manager, so it does
not import the manager (the manager imports it) and a read-only view can use it too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mithub.context.models import TopicSegment, Utterance
from mithub.context.repository import STATE_FORMAT_VERSION, ManagerState, MeetingRepository
from mithub.errors import StoreError


@dataclass(frozen=True)
class RestoreSizes:
    """How many stored turns each of the manager's windows holds."""

    l0_turns: int
    topic_buffer_turns: int
    detector_history_turns: int
    per_speaker_turns: int


@dataclass(frozen=True)
class StoredMeeting:
    """Everything a manager is rebuilt from. `state` is None when no L1 update was ever saved;
    then every stored turn is in `tail`."""

    stored: int  # number of stored utterances (0: a new meeting)
    state: ManagerState | None = None
    segments: list[TopicSegment] = field(default_factory=list)
    l0: list[Utterance] = field(default_factory=list)
    topic_buffer: list[Utterance] = field(default_factory=list)
    detector_history: list[Utterance] = field(default_factory=list)
    speaker_turns: list[Utterance] = field(default_factory=list)
    tail: list[Utterance] = field(default_factory=list)


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


def _check_format(state: ManagerState) -> None:
    if state.format_version != STATE_FORMAT_VERSION:
        raise StoreError(
            f"meeting {state.meeting_id}: saved state format {state.format_version} is not "
            f"{STATE_FORMAT_VERSION}; run `mithub db upgrade` with the matching version"
        )


async def _speaker_turns(
    repository: MeetingRepository, meeting_id: str, per_speaker: int, until: int
) -> list[Utterance]:
    turns: list[Utterance] = []
    for speaker_id in await repository.get_speaker_ids(meeting_id, until_seq=until):
        turns += await repository.get_last_utterances(
            meeting_id, per_speaker, until_seq=until, speaker_id=speaker_id
        )
    turns.sort(key=lambda u: u.id)
    return turns


async def load_stored_meeting(
    repository: MeetingRepository, meeting_id: str, sizes: RestoreSizes
) -> StoredMeeting:
    """What `meeting_id`'s manager is rebuilt from (raises StoreError on a foreign state format)."""
    stored = await repository.last_seq(meeting_id)
    if stored == 0:
        return StoredMeeting(stored=0)
    state, segments = await repository.load_state(meeting_id)
    if state is None:
        return StoredMeeting(stored=stored, tail=await repository.get_utterances(meeting_id, after_seq=0))
    _check_format(state)
    until = state.last_seq
    recent = await repository.get_last_utterances(meeting_id, sizes.l0_turns, until_seq=until)
    topic_turns = await repository.get_utterances(
        meeting_id, after_seq=state.topic_buffer_start_seq - 1, until_seq=until
    )
    history = await repository.get_last_utterances(
        meeting_id, sizes.detector_history_turns, until_seq=until
    )
    speakers = await _speaker_turns(repository, meeting_id, sizes.per_speaker_turns, until)
    return StoredMeeting(
        stored=stored,
        state=state,
        segments=segments,
        l0=_label(recent, segments, state),
        topic_buffer=_label(topic_turns[-sizes.topic_buffer_turns:], segments, state),
        detector_history=history,
        speaker_turns=_label(speakers, segments, state),
        tail=await repository.get_utterances(meeting_id, after_seq=until),
    )
