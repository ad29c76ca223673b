"""PostgreSQL statements for the live write path: one autocommit statement per utterance.

A write-through in a transaction is four round trips (BEGIN, lease fence, INSERT, COMMIT);
on a busy machine each one waits for the server process to be scheduled again. Here the
fence and the insert are one statement: data-modifying CTEs run to completion in a single
snapshot, and the INSERT happens only if the UPDATE renewed this owner's lease. The UPDATE
takes the lease row's lock, so a concurrent takeover is serialized exactly as in the
transaction path, and the statement commits (WAL flushed) before the server answers.
Batches, first writes of a meeting and SQLite use the transaction path in `sql.py`.
"""

from __future__ import annotations

from sqlalchemy import text

_COLUMNS = (
    "meeting_id, seq, speaker_id, speaker_name, text, start_ms, end_ms, confidence, "
    "absolute_timestamp, topic, topic_id, stored_at"
)
# Explicit casts: parameters in a SELECT list have no column to take their type from.
_VALUES = (
    "CAST(:meeting_id AS varchar), CAST(:seq AS bigint), CAST(:speaker_id AS varchar), "
    "CAST(:speaker_name AS varchar), CAST(:text AS text), CAST(:start_ms AS bigint), "
    "CAST(:end_ms AS bigint), CAST(:confidence AS double precision), "
    "CAST(:absolute_timestamp AS timestamptz), CAST(:topic AS varchar), "
    "CAST(:topic_id AS varchar), CAST(:stored_at AS timestamptz)"
)

PG_INSERT_UTTERANCE = text(
    f"INSERT INTO utterances ({_COLUMNS}) SELECT {_VALUES} ON CONFLICT (meeting_id, seq) DO NOTHING"
)

# Returns 1 when this owner still held the lease (the utterance is stored, or was already),
# 0 when it did not (nothing was written).
PG_FENCED_INSERT_UTTERANCE = text(f"""
WITH fence AS (
    UPDATE meeting_leases SET heartbeat_at = :now, expires_at = :expires
    WHERE meeting_id = CAST(:meeting_id AS varchar) AND owner = :owner
    RETURNING 1
), inserted AS (
    INSERT INTO utterances ({_COLUMNS})
    SELECT {_VALUES} WHERE EXISTS (SELECT 1 FROM fence)
    ON CONFLICT (meeting_id, seq) DO NOTHING
    RETURNING 1
)
SELECT count(*) FROM fence
""")
