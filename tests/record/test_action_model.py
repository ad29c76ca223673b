"""The commitment-turn model: shipped weights, what a missing or damaged file does, retraining
that gives the same weights, and the owners and confidences of the items it yields."""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from mithub.agent.decision_watch import record_meeting
from mithub.agent.session import MeetingSession
from mithub.config import ContextConfig
from mithub.context.builder import ContextBuilder
from mithub.context.extractive import scan_cues
from mithub.context.models import Utterance
from mithub.embedders import load_embedder
from mithub.minutes.compose import compose_minutes
from mithub.errors import ModelLoadError
from mithub.record import action_model
from mithub.record.action_features import FEATURE_NAMES
from mithub.record.actions import extract_action_items
from mithub.record.ledger import actions_document, build_ledger
from mithub.record.llm_record import _Action, _Answer, _accept
from mithub.record.meeting_record import MeetingRecord, extract_record
from mithub.record.models import ActionItem
from mithub.record.action_training import load_extra, load_meetings, main as train_actions_main, train_actions
from mithub.store.memory import InMemoryRepository

DATA = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "data"
MONDAY = date(2026, 9, 7)
START = datetime(2026, 9, 7, 1, 0, tzinfo=UTC)


def _turns(*lines: tuple[str, str]) -> list[Utterance]:
    return [Utterance(id=i, speaker_id=name, speaker_name=name, text=text,
                      absolute_timestamp=START + timedelta(seconds=10 * i))
            for i, (name, text) in enumerate(lines, start=1)]


def test_shipped_weights_load_with_the_features_the_code_computes():
    model = action_model.load_action_model()
    assert model.model.feature_names == list(FEATURE_NAMES)
    assert 0 < model.rule.candidate_floor <= model.rule.threshold < 1
    assert (action_model.WEIGHTS_DIR / "actions.md").is_file()  # its model card


@pytest.mark.parametrize("content", [None, "{not json", json.dumps({"format": "other"})], ids=["missing", "corrupt", "foreign"])
def test_missing_or_damaged_weights_name_the_rebuild_command(tmp_path, content):
    path = tmp_path / "actions.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ModelLoadError) as err:
        action_model.load_action_model(path)
    assert action_model.REBUILD in str(err.value) and str(path) in str(err.value)


def test_without_weights_the_meeting_is_kept_and_ends_without_a_record(tmp_path, monkeypatch):
    monkeypatch.setattr(action_model, "WEIGHTS", tmp_path / "gone.json")
    store = InMemoryRepository()
    turns = _turns(("김지현", "서준 님, 견적서 금요일까지 보내 주세요."), ("이서준", "네, 보내 드릴게요."))

    async def run() -> object:
        await store.ensure_meeting("m1", series_id="s", started_at=START)
        await store.append_utterances("m1", turns)
        return await record_meeting(store, "m1")

    assert asyncio.run(run()) is None
    assert [u.text for u in asyncio.run(store.get_utterances("m1"))] == [t.text for t in turns]
    assert asyncio.run(store.series_records("s")) == []


@pytest.mark.skipif(not (DATA / "decisions").is_dir(), reason="the benchmark data (../shared) is not here")
def test_retraining_gives_the_same_weights(tmp_path):
    # A small copy of the data (three series, one real meeting) keeps the test short.
    data = tmp_path / "data"
    for sid in ("en01", "ko01", "ko09"):
        (data / "decisions" / sid).mkdir(parents=True)
        for f in (DATA / "decisions" / sid).iterdir():
            (data / "decisions" / sid / f.name).symlink_to(f)
    (data / "real_record").mkdir()
    for f in (DATA / "real_record").glob("ES2008c.*"):
        (data / "real_record" / f.name).symlink_to(f)
    first, second = tmp_path / "a", tmp_path / "b"
    train_actions(data, first)
    train_actions(data, second)
    assert (first / "actions.json").read_bytes() == (second / "actions.json").read_bytes()
    assert action_model.load_action_model(first / "actions.json").model.feature_names == list(FEATURE_NAMES)


def test_extra_series_are_read_only_when_asked_and_a_missing_one_is_named(tmp_path, capsys):
    own = tmp_path / "own" / "ko90"
    own.mkdir(parents=True)
    for f in (DATA / "decisions" / "ko01").iterdir():
        (own / f.name).symlink_to(f)
    base = load_meetings(DATA)
    extras = load_extra([tmp_path / "own"])
    assert [m.group for m in extras] == ["ko01", "ko01"] and all(m.kind == "series" for m in extras)
    assert len(load_meetings(DATA, [tmp_path / "own"])) == len(base) + 2
    missing = tmp_path / "no-such-series"
    with pytest.raises(FileNotFoundError, match="no-such-series"):
        load_meetings(DATA, [missing])
    with pytest.raises(SystemExit) as exit_:
        train_actions_main(["--data", str(DATA), "--out", str(tmp_path / "w"), "--extra", str(missing)])
    assert exit_.value.code == 2 and str(missing) in capsys.readouterr().err
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize("script", ["record_actions.py", "record_topics.py"])
def test_the_benchmarks_extra_option_names_a_missing_folder(tmp_path, script):
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    missing = tmp_path / "no-such-series"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}  # the mithub this test imports
    done = subprocess.run([sys.executable, str(root / "benchmarks" / script), "--extra", str(missing)],
                          capture_output=True, text=True, cwd=root, timeout=120, env=env)
    assert done.returncode == 2 and str(missing) in done.stderr


def test_a_person_only_copied_is_not_the_owner_anywhere():
    """Issue 19 §5: "민호 님 참조로" copies 민호; the work is 서준's, in the record and the ledger."""
    turns = _turns(("최민호", "안녕하세요."), ("김지현", "서준 님, 견적서 정리해서 금요일에 민호 님 참조로 같이 보내 주세요."),
                   ("이서준", "네, 그렇게 할게요."))
    record = extract_record("m", "s", START, turns)
    owners = {a.owner for a in record.action_items if a.seq in (2, 3) and not a.candidate}
    assert owners == {"이서준"}
    ledger = actions_document(build_ledger("s", [record], []))
    assert {a["owner"] for a in ledger["actions"] if a["seq"] in (2, 3)} == {"이서준"}
    _, _, timeline = scan_cues(turns, ["최민호", "김지현", "이서준"])  # the topic timeline's items
    assert timeline and all(line.startswith("이서준: ") for line in timeline)


def test_every_item_has_a_confidence_and_candidates_stay_out_of_the_ledger():
    lines = json.loads((Path(__file__).resolve().parents[2] / "examples" / "meetings" / "en_sprint_review.facts.json")
                       .read_text(encoding="utf-8"))
    assert lines  # the sample meeting exists
    turns = [Utterance(id=i, speaker_id=r["speaker_id"], speaker_name=r["speaker_name"], text=r["text"],
                       absolute_timestamp=START + timedelta(milliseconds=r["start_ms"]))
             for i, r in enumerate(map(json.loads, (Path(__file__).resolve().parents[2] / "examples" / "meetings"
                                                    / "en_sprint_review.jsonl").read_text(encoding="utf-8").splitlines()), 1)]
    record = extract_record("m", "s", START, turns)
    threshold = action_model.load_action_model().rule.threshold_for("en")  # an English meeting
    assert all((a.confidence < threshold) == a.candidate for a in record.action_items)
    document = actions_document(build_ledger("s", [record], []))
    assert all(not a["candidate"] for a in document["actions"])
    assert len(document["actions"]) == sum(not a.candidate for a in record.action_items)
    with_candidates = actions_document(build_ledger("s", [record], []), candidates=True)
    assert len(with_candidates["candidates"]) == sum(a.candidate for a in record.action_items)


def test_a_volunteer_owns_the_work_and_the_task_is_a_phrase_without_the_date():
    items = extract_action_items("m", _turns(("Priya Nair", "Who can draft the vendor email?"),
                                             ("Omar Haddad", "I'll draft the vendor email by Friday.")), MONDAY)
    shown = [a for a in items if not a.candidate]
    assert [(a.owner, a.due_date) for a in shown] == [("Omar Haddad", date(2026, 9, 11))]
    assert "Friday" not in shown[0].task and "vendor email" in shown[0].task


def test_a_request_naming_two_people_words_each_task_from_their_own_clause():
    """"수민 님이 … 답변서 초안 만들어 주시고, 서준 님은 기술 항목 12개 검토해 주세요" then 서준's yes:
    서준's task is the technical review, not the longer clause addressed to 수민."""
    lines = [json.loads(line) for line in
             (Path(__file__).resolve().parents[2] / "examples" / "meetings" / "ko_product_planning.jsonl")
             .read_text(encoding="utf-8").splitlines() if line.strip()]
    turns = _turns(*[(line["speaker_name"], line["text"]) for line in lines])
    request = next(t.id for t in turns if "87개 항목 답변서" in t.text)
    items = [a for a in extract_action_items("m", turns, MONDAY) if a.owner == "박서준"
             and {a.seq, *a.support_seqs} & {request, request + 1}]
    assert items, "the technical review is an item of 박서준's"
    assert all("답변서" not in a.task for a in items), [a.task for a in items]
    assert any("기술 항목" in a.task for a in items), [a.task for a in items]


FIRST, SECOND = datetime(2026, 10, 13, 1, 0, tzinfo=UTC), datetime(2026, 10, 20, 1, 0, tzinfo=UTC)


def _lines(start: datetime, *pairs: tuple[str, str]) -> list[Utterance]:
    return [Utterance(id=i, speaker_id=n, speaker_name=n, text=t, absolute_timestamp=start + timedelta(seconds=10 * i))
            for i, (n, t) in enumerate(pairs, start=1)]


async def _launch_dated_then_a_deadline_on_it() -> InMemoryRepository:
    """Meeting 1 dates the launch and ends; meeting 2, a week later, hangs a deadline on it."""
    store = InMemoryRepository()
    await store.ensure_meeting("m1", series_id="s", started_at=FIRST)
    await store.append_utterances("m1", _lines(FIRST, ("주형석", "좋아요. 출시는 11월 5일 목요일로 갑니다.")))
    await record_meeting(store, "m1")
    await store.ensure_meeting("m2", series_id="s", started_at=SECOND)
    await store.append_utterances("m2", _lines(SECOND, ("권다솜", "소스 발주 얘기 하죠."),
                                               ("하유진", "발주는 제가 출시 2주 전까지 넣을게요.")))
    return store


def _due_of_하유진(record) -> date | None:  # noqa: ANN001
    [item] = [a for a in record.action_items if a.owner == "하유진"]
    return item.due_date


def test_the_stored_record_dates_a_deadline_by_an_event_of_the_series_earlier_meeting():
    # "출시 2주 전까지" in meeting 2 takes the date meeting 1 gave 출시 (11-05): 10-22.
    async def run() -> object:
        return await record_meeting(await _launch_dated_then_a_deadline_on_it(), "m2")

    assert _due_of_하유진(asyncio.run(run())) == date(2026, 10, 22)


def test_the_running_meetings_record_dates_it_too():
    """What the template answers list during meeting 2 (MeetingSession.meeting_record) reads
    the series' earlier meetings as the stored record does."""
    builder = ContextBuilder(config=ContextConfig(), embedder=load_embedder())

    async def run() -> tuple[object, object]:
        store = await _launch_dated_then_a_deadline_on_it()
        sessions = []
        for _ in range(2):
            session = MeetingSession(None, store, builder.new_transcript_index(),  # type: ignore[arg-type]
                                     series_id="s", started_at=SECOND)
            session.manager = type("M", (), {"meeting_id": "m2"})()
            await session.sync_transcript()
            sessions.append(session)
        return await sessions[0].meeting_record(), await sessions[1].meeting_record(store)

    alone, with_series = asyncio.run(run())
    assert _due_of_하유진(alone) is None  # the launch is dated only in meeting 1
    assert _due_of_하유진(with_series) == date(2026, 10, 22)


@pytest.fixture
def fresh_minutes_cache(monkeypatch):
    """The running meetings' records kept by the minutes are per process, by meeting id."""
    monkeypatch.setattr("mithub.minutes.compose._RUNNING_RECORDS", OrderedDict())


def test_the_running_meetings_minutes_date_it_too(fresh_minutes_cache):
    """The recap page and the API compose a running meeting's minutes from a record extracted
    at the view: the same due date as the record stored at its end."""
    async def run() -> object:
        return await compose_minutes(await _launch_dated_then_a_deadline_on_it(), "m2")

    [item] = [a for a in asyncio.run(run()).action_items if a.owner == "하유진"]
    assert item.due == date(2026, 10, 22)


def test_a_running_meetings_minutes_read_the_earlier_meetings_once(fresh_minutes_cache):
    """A new turn makes the minutes extract the record again, not read last week's turns again."""
    async def run() -> tuple[list[str], object]:
        store = await _launch_dated_then_a_deadline_on_it()
        read: list[str] = []
        get = store.get_utterances

        async def counted(meeting_id: str, **kw):  # noqa: ANN202
            read.append(meeting_id)
            return await get(meeting_id, **kw)

        store.get_utterances = counted  # type: ignore[method-assign]
        await compose_minutes(store, "m2")
        await store.append_utterances("m2", [Utterance(id=3, speaker_id="권다솜", speaker_name="권다솜",
                                                       text="좋아요, 다음 건 보죠.", absolute_timestamp=SECOND + timedelta(minutes=5))])
        return read, await compose_minutes(store, "m2")

    read, minutes = asyncio.run(run())
    assert read.count("m1") == 1 and read.count("m2") == 2
    [item] = [a for a in minutes.action_items if a.owner == "하유진"]
    assert item.due == date(2026, 10, 22)


def test_an_llm_items_deadline_on_an_event_takes_the_llm_free_records_date():
    """The LLM names the item and its due words but cannot date an event: the date the
    LLM-free record resolved for the same line and owner is kept (and only then)."""
    turns = _lines(SECOND, ("권다솜", "소스 발주 얘기 하죠."), ("하유진", "발주는 제가 출시 2주 전까지 넣을게요."))
    ours = ActionItem(meeting_id="m2", seq=2, owner="하유진", task="발주 넣기", due_text="출시 2주 전까지",
                      due_date=date(2026, 10, 22), quote=turns[1].text, speaker="하유진", time=turns[1].absolute_timestamp)
    answer = _Answer(action_items=[_Action(seq=2, owner="하유진", task="소스 발주", due_text="출시 2주 전까지"),
                                   _Action(seq=1, owner="권다솜", task="발주 논의", due_text="출시 전")])
    record = MeetingRecord(meeting_id="m2", series_id="s", started_at=SECOND, last_seq=2, mode="llm")
    _accept(record, answer, {u.id: u for u in turns}, ["권다솜", "하유진"], SECOND.date(), "m2", {(2, "하유진"): ours})
    assert [(a.owner, a.task, a.due_date) for a in record.action_items] == [
        ("하유진", "소스 발주", date(2026, 10, 22)), ("권다솜", "발주 논의", None)]
