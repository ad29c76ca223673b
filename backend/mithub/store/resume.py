"""Where a replay of a transcript resumes after a crash: the transcript is the log, the
store's last seq is the cursor.

The replay feeds the manager one stored-size piece at a time (a long line is split first,
exactly as `add_utterance` would split it), so piece number N of the transcript is
utterance seq N of the meeting. A resumed run restores the manager, skips the first
`last_seq` pieces and feeds the rest: the same pieces, in the same order, with the same clock,
as a run that never stopped. No progress table is needed, and none can disagree with the
utterances themselves. The piece at the cursor is compared with the stored utterance, so
resuming against another file, or with other split settings, is refused instead of mixed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from mithub.budget import TokenBudgetManager
from mithub.context.models import NewUtterance, Utterance
from mithub.context.splitting import split_oversize
from mithub.errors import InputError


@dataclass(frozen=True)
class ReplayPiece:
    seq: int
    line: int
    utterance: NewUtterance
    line_timestamp: datetime  # the replay clock for every piece of the line


def settled_pieces(
    utterance: NewUtterance, max_tokens: int, budget: TokenBudgetManager
) -> list[NewUtterance]:
    """The utterances `add_utterance` stores for this one, split until each piece is one the
    manager keeps whole; so feeding the pieces one by one stores exactly these."""
    pending, settled = [utterance], []
    while pending:
        piece = pending.pop(0)
        parts = split_oversize(piece, max_tokens, budget)
        if len(parts) == 1:
            settled.append(parts[0])
        else:
            pending[:0] = parts
    return settled


def replay_pieces(
    lines: Iterable[tuple[int, NewUtterance]], max_tokens: int, budget: TokenBudgetManager
) -> Iterator[ReplayPiece]:
    seq = 0
    for number, line in lines:
        for piece in settled_pieces(line, max_tokens, budget):
            seq += 1
            yield ReplayPiece(seq, number, piece, line.absolute_timestamp)


def _same(piece: NewUtterance, stored: Utterance) -> bool:
    return (piece.speaker_id, piece.text, piece.start_ms, piece.end_ms) == (
        stored.speaker_id,
        stored.text,
        stored.start_ms,
        stored.end_ms,
    )


def resume_after(
    pieces: Iterable[ReplayPiece], last_stored: Utterance | None, *, meeting_id: str, source: Path
) -> Iterator[ReplayPiece]:
    """The pieces not stored yet. Raises InputError when the stored meeting is not a prefix
    of this transcript."""
    stored = last_stored.id if last_stored is not None else 0
    seen = 0
    for piece in pieces:
        seen = piece.seq
        if piece.seq < stored:
            continue
        if piece.seq == stored:
            assert last_stored is not None
            if not _same(piece.utterance, last_stored):
                raise _mismatch(meeting_id, stored, source, f"line {piece.line} differs from it")
            continue
        yield piece
    if seen < stored:
        raise _mismatch(meeting_id, stored, source, f"the file yields only {seen}")


def _mismatch(meeting_id: str, stored: int, source: Path, detail: str) -> InputError:
    return InputError(
        f"meeting {meeting_id} already holds {stored} utterances that are not a replay of this "
        f"file ({detail}); use another --meeting-id, or the file and CONTEXT_UTTERANCE_MAX_TOKENS "
        "of the first run",
        source=source,
    )
