"""`mithub decisions --series S` and `mithub actions --series S`: the series ledger, what its
meetings decided (active, or changed by a later meeting) and the action items they agreed."""

from __future__ import annotations

import argparse
import asyncio
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    for name, help_text in (("decisions", "the decisions of a series and the changes made to them"),
                            ("actions", "the action items of a series, with owners and due dates")):
        parser = subparsers.add_parser(name, help=help_text)
        parser.add_argument("--series", required=True, metavar="S", help="the series id (`mithub meetings list`)")
        parser.add_argument("--database-url", metavar="URL",
                            help="default: DATABASE_URL, else sqlite+aiosqlite:///./data/mithub.db")
        parser.add_argument("--json", action="store_true", help="machine-readable output")
        parser.add_argument("--candidates", action="store_true",
                            help="also list the items below the model's confidence threshold")
        parser.set_defaults(handler=lambda args, name=name: asyncio.run(_show(args, name)))


async def _show(args: argparse.Namespace, what: str) -> int:
    from mithub.agent.decision_watch import series_ledger
    from mithub.record.ledger import actions_document, decisions_document
    from mithub.store.open import open_database
    from mithub.store.sql import SqlRepository

    database = await open_database(args.database_url, create=False)
    try:
        ledger = await series_ledger(SqlRepository(database), args.series)
    finally:
        await database.dispose()
    if args.json:
        document = (decisions_document(ledger, candidates=args.candidates) if what == "decisions"
                    else actions_document(ledger, candidates=getattr(args, "candidates", False)))
        print(json.dumps(document, ensure_ascii=False, indent=2))
        return 0
    print(_decisions_text(ledger, args.candidates) if what == "decisions" else _actions_text(ledger, getattr(args, "candidates", False)))
    return 0


def _decisions_text(ledger, candidates: bool = False) -> str:  # noqa: ANN001
    if not ledger.decisions and not (candidates and ledger.decision_candidates):
        return f"no decisions recorded for series {ledger.series_id!r} (a meeting's record is kept when it ends)"
    changes = {f"{c.meeting_id}:{c.seq}": c for c in ledger.changes}
    lines = [f"Decisions of series {ledger.series_id}"]
    shown = [*ledger.decisions, *(ledger.decision_candidates if candidates else [])]
    for d in sorted(shown, key=lambda d: (d.time, d.seq)):
        mark = ", candidate" if d.candidate else ""
        lines.append(f"- [{d.status}] {d.time:%Y-%m-%d %H:%M} {d.speaker} ({d.meeting_id} #{d.seq}): {d.subject} = {d.value}"
                     f"  (confidence {d.confidence:.2f}{mark})")
        lines.append(f"    \"{d.quote}\"")
        if d.changed_by and d.changed_by in changes:
            c = changes[d.changed_by]
            lines.append(f"    changed ({c.kind}, confidence {c.confidence:.2f}) {c.time:%Y-%m-%d %H:%M} {c.speaker} "
                         f"({c.meeting_id} #{c.seq}): \"{c.quote}\"")
    for c in ledger.change_candidates if candidates else []:
        lines.append(f"- possible change (candidate, confidence {c.confidence:.2f}) of {c.past.meeting_id} #{c.past.seq} "
                     f"by {c.speaker} ({c.meeting_id} #{c.seq}): \"{c.quote}\"")
    return "\n".join(lines)


def _actions_text(ledger, candidates: bool = False) -> str:  # noqa: ANN001
    if not ledger.actions and not (candidates and ledger.candidates):
        return f"no action items recorded for series {ledger.series_id!r}"
    lines = [f"Action items of series {ledger.series_id}"]
    shown = [*ledger.actions, *(ledger.candidates if candidates else [])]
    for a in sorted(shown, key=lambda a: (a.time, a.seq)):
        due = f" — due {a.due_date.isoformat()} ({a.due_text})" if a.due_date else (f" — {a.due_text}" if a.due_text else "")
        mark = " (candidate)" if a.candidate else ""
        lines.append(f"- {a.owner}: {a.task}{due}  [{a.meeting_id} #{a.seq}, {a.speaker} {a.time:%H:%M}, "
                     f"confidence {a.confidence:.2f}]{mark}")
    return "\n".join(lines)
