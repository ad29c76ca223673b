"""The fitted topic boundary model: shipped weights, online = batch decisions, errors that name
the rebuild command, a meeting that goes on without the weights, deterministic retraining."""

import itertools
import json

import numpy as np
import pytest
from structlog.testing import capture_logs

from mithub.budget import TokenBudgetManager
from mithub.config import ContextConfig
from mithub.context.extractive import ExtractiveSummarizer
from mithub.context.manager import ContextManager
from mithub.context.models import NewUtterance
from mithub.errors import ModelLoadError
from mithub.store.memory import InMemoryRepository
from mithub.topics.boundary import REBUILD_COMMAND, BoundaryModel
from mithub.topics.detector import TopicDetector, detect_boundaries
from mithub.topics.features import FEATURE_NAMES, RIGHT_TURNS, meeting_candidates
from mithub.topics.peaks import DecisionRule, OnlinePicker, pick_boundaries
from mithub.topics.training import main as train_main
from mithub.topics.training import meeting_rows, sample_weights
from mithub.topics.training_data import build_meetings, load_extra, load_raw
from mithub.topics.turns import TurnFeatures

from .topic_meetings import BUDGET, HIRING, meeting, topic_turns


def test_the_shipped_model_loads_and_keeps_the_live_lookahead():
    model = BoundaryModel.load()
    assert model.classifier.feature_names == list(FEATURE_NAMES)
    assert model.lookahead <= 27  # the semantic-shift detector's lookahead before the model


def _online(probabilities, rule):
    picker = OnlinePicker(rule)
    out = []
    if len(probabilities) - (RIGHT_TURNS - 1) <= 1:
        picker.ending(len(probabilities))
    for position in range(1, len(probabilities)):
        if position == len(probabilities) - (RIGHT_TURNS - 1):  # the rest arrives at the end
            picker.ending(len(probabilities))
        p = min(max(probabilities[position], 1e-12), 1 - 1e-12)
        out += picker.push(position, float(np.log(p / (1 - p))))
    return out + picker.finish()


def test_online_peak_picking_decides_as_the_batch_rule_used_in_training():
    rng = np.random.default_rng(7)
    rules = [DecisionRule(t, r, g, m, s, w) for t, r, g, m, s, w in
             itertools.product((0.3, 0.6), (2, 4), (0.0, 0.2), (2, 6), (0.0, 0.5), (0, 2))]
    for trial in range(60):
        p = rng.random(int(rng.integers(2, 90)))
        if trial % 3 == 0:
            p = np.round(p, 1)  # ties
        for rule in rules:
            assert _online(p, rule) == pick_boundaries(p, rule), (trial, rule)


@pytest.mark.asyncio
async def test_the_live_detector_finds_what_the_batch_model_finds(embedder):
    model = BoundaryModel.load()
    utterances = meeting(topic_turns(BUDGET, 30), topic_turns(HIRING, 30, 1), topic_turns(BUDGET, 20, 2))
    detector = TopicDetector(ContextConfig(), embedder, boundary_model=model)
    live = [c.boundary_seq - 1 for c in await detect_boundaries(detector, utterances)]
    turns = [detector._features(u) for u in utterances]
    rows = np.vstack([c.values for c in meeting_candidates(turns)])
    probabilities = np.concatenate([[0.0], model.classifier.predict_proba(rows)])
    assert live == pick_boundaries(probabilities, model.rule)
    # The strongest evidence in the meeting lies at one of its two topic changes (turns 30, 60).
    assert min(abs(int(np.argmax(probabilities)) - shift) for shift in (30, 60)) <= 3


def test_missing_weights_are_an_error_naming_the_rebuild_command(tmp_path):
    with pytest.raises(ModelLoadError, match="missing") as error:
        BoundaryModel.load(tmp_path / "boundary.json")
    assert REBUILD_COMMAND in str(error.value)


@pytest.mark.parametrize("content", ["{not json", json.dumps({"format": "other"}), ""])
def test_corrupt_weights_are_an_error_naming_the_rebuild_command(tmp_path, content):
    path = tmp_path / "boundary.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ModelLoadError, match="unreadable") as error:
        BoundaryModel.load(path)
    assert REBUILD_COMMAND in str(error.value)


def test_weights_fitted_on_other_features_are_refused(tmp_path):
    data = BoundaryModel.load().to_dict()
    data["classifier"]["feature_names"][0] = "something_else"
    path = tmp_path / "boundary.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelLoadError, match="other features"):
        BoundaryModel.load(path)


@pytest.mark.asyncio
@pytest.mark.parametrize("content", [None, "{broken"])
async def test_a_live_meeting_goes_on_without_the_weights(tmp_path, embedder, content):
    path = tmp_path / "boundary.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    config = ContextConfig()
    with capture_logs() as logs:
        detector = TopicDetector(config, embedder, boundary_model=path)
    assert not detector.uses_model
    errors = [e for e in logs if e["event"] == "topic_boundary_model_unavailable"]
    assert errors and REBUILD_COMMAND in errors[0]["error"] and errors[0]["log_level"] == "error"

    budget = TokenBudgetManager()
    manager = ContextManager(
        "m-fallback", repository=InMemoryRepository(), topic_detector=detector,
        summarizer=ExtractiveSummarizer(embedder, budget, config.l1_summary_max_tokens),
        config=config, budget=budget,
    )
    utterances = meeting(topic_turns(BUDGET, 30), topic_turns(HIRING, 30, 1))
    for u in utterances:
        await manager.add_utterance(_new(u))
    await manager.finalize()
    assert manager.last_seq == len(utterances)
    assert len(manager.get_l1_segments()) >= 2  # the semantic-shift fallback still opens topics


def _new(u):
    return NewUtterance(speaker_id=u.speaker_id, speaker_name=u.speaker_name, text=u.text,
                        start_ms=u.start_ms, end_ms=u.end_ms, absolute_timestamp=u.absolute_timestamp)


def _tiny_data(root):
    """Five QMSum-like meetings and two two-meeting series, from the synthetic topics."""
    seg = root / "segmentation"
    seg.mkdir(parents=True)
    lines = []
    for index in range(5):
        first, second = (BUDGET, HIRING) if index % 2 else (HIRING, BUDGET)
        turns = [{"speaker": f"s{i % 3}", "text": t} for i, t in enumerate(first[index:] + second)]
        cut = len(first) - index
        turn_topic = [0, -1] + [0] * (cut - 2) + [1] * (len(turns) - cut)  # turn 1 uncovered
        lines.append(json.dumps({"meeting_id": f"q{index}", "turns": turns, "boundaries": [cut],
                                 "turn_topic": turn_topic}, ensure_ascii=False))
    (seg / "qmsum_train.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for series in ("ko90", "ko91"):
        folder = root / "decisions" / series
        folder.mkdir(parents=True)
        topics = {"series_id": series, "meetings": []}
        for number in (1, 2):
            texts = BUDGET[number:] + HIRING[: 10 + number]
            rows = [{"speaker_id": f"u{i % 3}", "speaker_name": f"n{i % 3}", "text": t} for i, t in enumerate(texts)]
            (folder / f"meeting{number}.jsonl").write_text(
                "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
            topics["meetings"].append({"meeting_id": f"{series}-{number}",
                                       "topics": [{"start": 0, "label": "a"}, {"start": len(BUDGET) - number, "label": "b"}]})
        (folder / "topics.json").write_text(json.dumps(topics, ensure_ascii=False), encoding="utf-8")


def test_retraining_gives_the_same_weights(tmp_path):
    _tiny_data(tmp_path / "data")
    first, second = tmp_path / "a" / "boundary.json", tmp_path / "b" / "boundary.json"
    assert train_main(["--data", str(tmp_path / "data"), "--out", str(first)]) == 0
    assert train_main(["--data", str(tmp_path / "data"), "--out", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()
    assert second.with_suffix(".md").read_text(encoding="utf-8").startswith("# Topic boundary model")
    model = BoundaryModel.load(first)  # what training writes, the detector reads
    assert model.classifier.feature_names == list(FEATURE_NAMES)


def test_training_reads_both_sources_and_leaves_uncovered_turns_unlabelled(tmp_path, embedder):
    _tiny_data(tmp_path / "data")
    raws = load_raw(tmp_path / "data")
    assert [r.source for r in raws].count("qmsum") == 5 and [r.group for r in raws if r.source == "series"] == ["ko90"] * 2 + ["ko91"] * 2
    assert raws[0].labelled[1] is False and sum(raws[0].labelled) == len(raws[0].texts) - 1
    rows = [meeting_rows(m) for m in build_meetings(raws, embedder)]
    assert len(rows[0].y) == len(raws[0].texts) - 1 and rows[0].y.sum() == 3  # boundary ± 1 turn
    weights = sample_weights(rows)
    assert weights[0] == 0 and weights[1] > 0  # the uncovered turn (position 1) is not trained on
    by_source = {s: weights[np.concatenate([[r.raw.source == s] * len(r.y) for r in rows])].sum() for s in ("qmsum", "series")}
    assert by_source["qmsum"] == pytest.approx(by_source["series"])


def test_extra_series_join_the_training_data_only_when_asked(tmp_path):
    _tiny_data(tmp_path / "data")
    (tmp_path / "data" / "decisions").rename(tmp_path / "own")  # a second root in the same format
    (tmp_path / "data" / "decisions").mkdir()
    assert [r.source for r in load_raw(tmp_path / "data")].count("series") == 0
    extras = load_extra([tmp_path / "own"])
    assert [r.group for r in extras] == ["ko90"] * 2 + ["ko91"] * 2 and {r.source for r in extras} == {"series"}


def test_a_missing_extra_folder_is_an_error_naming_it(tmp_path, capsys):
    _tiny_data(tmp_path / "data")
    missing = tmp_path / "no-such-series"
    with pytest.raises(FileNotFoundError, match="no-such-series"):
        load_extra([missing])
    with pytest.raises(FileNotFoundError, match="holds no"):
        load_extra([tmp_path / "data" / "segmentation"])
    with pytest.raises(SystemExit) as exit_:
        train_main(["--data", str(tmp_path / "data"), "--out", str(tmp_path / "m.json"), "--extra", str(missing)])
    assert exit_.value.code == 2 and str(missing) in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


def test_a_change_of_who_holds_the_floor_reads_at_the_topic_scale():
    """A presenter talks for many turns with backchannels from the room, then another presenter
    takes over with the same words: the speaker windows of 128 and 256 content terms see the
    floor change hands at the switch, and not inside either presentation."""
    words = tuple(f"w{k}" for k in range(6))
    turns = []
    for i in range(240):
        presenter = "anna" if i < 120 else "ben"
        speaker = presenter if i % 3 else ("chris" if i % 2 else "dana")
        terms = words if speaker == presenter else words[:1]
        turns.append(TurnFeatures(seq=i, speaker=speaker, terms=terms, vector=np.ones(4)))
    by_position = {c.position: c.values for c in meeting_candidates(turns)}
    for name in ("spk_t128", "spk_t256"):
        column = FEATURE_NAMES.index(name)
        at_switch = by_position[120][column]
        inside = max(by_position[p][column] for p in (70, 90, 200, 220))
        assert at_switch > 0.5 > inside, (name, at_switch, inside)
