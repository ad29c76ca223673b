"""A room's metadata may name its meeting's time zone (issue 19 item 1)."""

from __future__ import annotations

import json

import pytest
from mithub_worker.server import meeting_zone


@pytest.mark.parametrize(("metadata", "zone"), [
    (json.dumps({"mithub": {"timezone": "Asia/Seoul"}}), "Asia/Seoul"),
    (json.dumps({"mithub": {"timezone": "-05:00", "series": "weekly"}}), "-05:00"),
    (json.dumps({"mithub": {"series": "weekly"}}), None),  # MEETING_TIMEZONE then
    ("", None),
    ("not json", None),
    (json.dumps({"mithub": {"timezone": "Mars/Olympus"}}), None),  # unknown: said in the log, not fatal
])
def test_the_room_metadata_names_the_zone(metadata, zone):
    assert meeting_zone("room-7", metadata) == zone
