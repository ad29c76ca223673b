"""Meetings in series: the organisation's memory (DESIGN §5). Finished meetings are searched
live beside today's transcript; the store is the source of truth and this index a cache of
it that every process keeps current on its own."""

from mithub.memory.organisation import OrganisationMemory
from mithub.memory.source import MemorySource

__all__ = ["MemorySource", "OrganisationMemory"]
