from datetime import datetime, timedelta, timezone

import pytest

from mithub.context.models import Utterance
from mithub.embedders import load_embedder

T0 = datetime(2026, 3, 2, 5, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="session")
def embedder():
    return load_embedder("use-multilingual")


def utterance(seq: int, text: str, speaker: str = "kim", name: str | None = None) -> Utterance:
    return Utterance(id=seq, speaker_id=speaker, speaker_name=name or speaker, text=text,
                     start_ms=seq * 3000, end_ms=seq * 3000 + 2000,
                     absolute_timestamp=T0 + timedelta(seconds=seq * 3))
