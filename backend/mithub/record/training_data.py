"""The data the decision models learn from (only training and the benchmark read it; the fitted
weights ship in the package):

- `../shared/benchmarks/data/decisions`: 18 two-meeting series. Settling turns: the gold
  `decisions_m1` lines of meeting 1, and the `new_decision` / `explicit_change` /
  `implicit_conflict` lines of meeting 2; `consistent` / `distractor` lines are hard negatives.
- `../shared/benchmarks/data/real_record`: 6 AMI/ICSI meetings with a reader's decisions.
- with `--extra`, more series in that format, e.g. `benchmarks/data/series` (`PROJECT_SERIES`,
  written by the project's own authors); not by default: fitted with them, the held-out figures
  on the benchmark's series fell (RESULTS.md). By default (`--check`) no model learns from them:
  their changes, scored by the pair model fitted on the benchmark's series, take part in choosing
  the change threshold, so that it is not the one that suits the benchmark's authors alone.

Each meeting's turn analyses and embeddings are computed once per process (and cached in
`cache_dir` when one is given, so iterating on a model does not run kiwi again).
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

import numpy as np

from mithub.learn.series_roots import extra_series_roots
from mithub.record.turn_features import Turn, TurnInfo, analyse_turn, meeting_features, speaker_roles_so_far

# Label of a turn for the settle model: 1 settles, 0 does not, -1 left out of training (the
# proposal just before and the confirmation just after a settled line, which the scorers
# accept as the same decision).
SETTLES, NOT, IGNORE = 1, 0, -1


@dataclass
class Meeting:
    meeting_id: str
    started_at: datetime
    turns: list[Turn]
    labels: list[int]
    group: str  # the series (or real meeting) held out together
    language: str
    hard_negative: set[int] = field(default_factory=set)
    vectors: np.ndarray | None = None
    rows: dict[int, list[dict[str, float]]] = field(default_factory=dict)  # lookahead -> feature rows
    infos: list[TurnInfo] = field(default_factory=list)

    @property
    def reference(self) -> date:
        return self.started_at.date()  # started_at carries the meeting's own offset


@dataclass
class Series:
    series_id: str
    language: str
    m1: Meeting
    m2: Meeting
    gold: dict


def _read_turns(path: Path) -> list[Turn]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Turn(r.get("speaker_name") or r.get("speaker_id", ""), r["text"]) for r in rows]


def _labels(n: int, positives: Sequence[int], neighbours: int = 1) -> list[int]:
    labels = [NOT] * n
    for i in positives:
        for k in range(-neighbours, neighbours + 1):
            if 0 <= i + k < n and labels[i + k] == NOT:
                labels[i + k] = IGNORE
    for i in positives:
        labels[i] = SETTLES
    return labels


# The project's own series (absent in an installed package, where nothing trains).
PROJECT_SERIES = Path(__file__).resolve().parents[3] / "benchmarks" / "data" / "series"


def series_folders(folder: Path, extra: Sequence[Path] = ()) -> list[Path]:
    """Every series folder under `folder` and the `extra` roots, in a fixed order."""
    roots = [folder, *extra_series_roots(extra, "gold.json")]
    return [d for root in roots for d in sorted(p for p in root.iterdir() if (p / "gold.json").is_file())]


def load_series(folder: Path, extra: Sequence[Path] = ()) -> list[Series]:
    out = []
    for d in series_folders(folder, extra):
        gold = json.loads((d / "gold.json").read_text(encoding="utf-8"))
        sid, lang = gold["series_id"], gold["language"]
        (a, b) = gold["meetings"]
        t1, t2 = _read_turns(d / "meeting1.jsonl"), _read_turns(d / "meeting2.jsonl")
        settled2 = [e["index"] for e in gold["events_m2"]
                    if e["kind"] in {"new_decision", "explicit_change", "implicit_conflict"}]
        m1 = Meeting(a["meeting_id"], datetime.fromisoformat(a["started_at"]), t1,
                     _labels(len(t1), [x["index"] for x in gold["decisions_m1"]]), sid, lang)
        m2 = Meeting(b["meeting_id"], datetime.fromisoformat(b["started_at"]), t2, _labels(len(t2), settled2), sid, lang)
        for e in gold["events_m2"]:
            if e["kind"] in {"consistent", "distractor"}:
                m2.labels[e["index"]] = NOT  # a hard negative, even beside a settled line
                m2.hard_negative.add(e["index"])
        out.append(Series(sid, lang, m1, m2, gold))
    return out


def load_real(folder: Path) -> list[Meeting]:
    """Real meetings; a reader's decision line settles, its support lines are left out."""
    out = []
    for meta in sorted(folder.glob("*.gold.json")):
        gold = json.loads(meta.read_text(encoding="utf-8"))
        mid = gold["meeting_id"]
        turns = _read_turns(meta.with_name(f"{mid}.jsonl"))
        labels = _labels(len(turns), [d["index"] for d in gold["decisions"]])
        for d in gold["decisions"]:
            for i in d.get("support_indices", []):
                if 0 <= i < len(turns) and labels[i] == NOT:
                    labels[i] = IGNORE
        meeting = Meeting(mid, datetime.fromisoformat(gold.get("started_at", "2005-01-10T10:00:00+00:00")),
                          turns, labels, mid, "en")
        meeting.hard_negative = set()
        out.append(meeting)
    return out


def prepare(meetings: Sequence[Meeting], lookaheads: Sequence[int], cache_dir: Path | None = None) -> None:
    """Fill each meeting's embeddings and feature rows (for each lookahead)."""
    from mithub.embedders import load_embedder

    embedder = None
    sources = features_digest() if cache_dir is not None else ""
    for m in meetings:
        key = hashlib.sha256(json.dumps([m.meeting_id, m.started_at.isoformat(), [(t.speaker, t.text) for t in m.turns],
                                         sorted(lookaheads), _FEATURE_VERSION, sources]).encode()).hexdigest()[:20]
        cached = cache_dir / f"{m.meeting_id}-{key}" if cache_dir is not None else None
        if cached is not None and (cached.with_suffix(".json")).is_file():
            data = json.loads(cached.with_suffix(".json").read_text(encoding="utf-8"))
            m.rows = {int(k): v for k, v in data.items()}
            m.vectors = np.load(cached.with_suffix(".npy"))
            continue
        if embedder is None:
            embedder = load_embedder()
        m.vectors = np.asarray(embedder.embed_documents([t.text for t in m.turns]), dtype=np.float32)
        names = sorted({t.speaker for t in m.turns})
        m.infos = [analyse_turn(t.text, reference=m.reference, names=names) for t in m.turns]
        roles = speaker_roles_so_far(m.turns)
        m.rows = {k: meeting_features(m.turns, reference=m.reference, lookahead=k, vectors=m.vectors,
                                      infos=m.infos, roles=roles) for k in lookaheads}
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.with_suffix(".json").write_text(json.dumps(m.rows), encoding="utf-8")
            np.save(cached.with_suffix(".npy"), m.vectors)


# The cache key holds `features_digest()`, so any edit to the code the rows come from reads no
# stale rows. Bump this for what the digest cannot see: how `prepare` itself builds the rows,
# or the model behind the default embedder (`embedders.factory`).
_FEATURE_VERSION = 24


def feature_sources() -> list[Path]:
    """The package's modules the feature rows are computed from: `turn_features` and every
    mithub module it imports, transitively (read from their import statements)."""
    package = Path(__file__).resolve().parents[1]  # mithub/
    found: dict[str, Path] = {}
    todo = ["mithub.record.turn_features"]
    while todo:
        name = todo.pop()
        base = package.joinpath(*name.split(".")[1:])
        path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if name in found or not path.is_file():
            continue  # a name imported from a module ("from mithub.text import has_hangul")
        found[name] = path
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mithub"):
                todo += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                todo += [alias.name for alias in node.names if alias.name.startswith("mithub")]
    return sorted(found.values())


def features_digest() -> str:
    """A digest of `feature_sources()`: any edit to the code the features come from."""
    digest = hashlib.sha256()
    for path in feature_sources():
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
