"""The recap page's words in the meeting's language (Korean or English, as the minutes)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from mithub.text import has_hangul

Language = Literal["ko", "en"]
KOREAN_SHARE = 0.3  # as the minutes: Korean when this share of the texts holds Hangul

LABELS: dict[Language, dict[str, str]] = {
    "ko": {
        "app": "MitHub 회의 기록",
        "series_list": "회의 시리즈",
        "no_meetings": "저장된 회의가 없습니다. `mithub replay` 또는 봇으로 회의를 기록하세요.",
        "meeting": "회의", "date": "일시", "decisions": "결정", "open_actions": "진행 중 액션",
        "turns": "발언", "ledger": "결정·액션 원장", "search": "검색",
        "participants": "참석자", "timeline": "주제 타임라인", "talk_time": "발언 시간",
        "action_items": "액션 아이템", "open_questions": "미결 사항", "transcript": "전사",
        "changed": "지난 회의 대비 변경", "was": "이전", "owner": "담당", "due": "기한",
        "no_due": "기한 없음", "said_by": "발언", "status": "상태", "active": "유효",
        "changed_status": "변경됨", "changes": "변경 내역", "from": "이전 결정", "to": "변경",
        "all": "전체", "open": "진행 중 (기한 전)", "overdue": "기한 도래",
        "filter": "거르기", "anyone": "모두", "no_items": "해당 항목이 없습니다.",
        "query": "질문", "results": "검색 결과", "no_results": "찾은 내용이 없습니다.",
        "memory_off": "조직 메모리가 꺼져 있습니다 (MEMORY_SCOPE=off).",
        "best_topic": "가장 가까운 주제", "logout": "로그아웃", "login": "로그인",
        "token": "API 토큰", "login_hint": "`mithub api`의 API_TOKEN을 한 번 입력하세요.",
        "wrong_token": "토큰이 맞지 않습니다.", "expired_form": "양식이 만료되었습니다. 다시 시도하세요.",
        "not_found": "찾을 수 없습니다", "extractive": "LLM 없이 회의 기록에서 그대로 작성했습니다.",
        "polished": "주제 요약의 문장은 LLM이 다듬었습니다. 항목과 인용은 회의 기록 그대로입니다.",
        "minutes_short": "분", "seconds_short": "초", "summary": "요약",
    },
    "en": {
        "app": "MitHub recap",
        "series_list": "Meeting series",
        "no_meetings": "No meetings stored yet. Record one with `mithub replay` or the bot.",
        "meeting": "Meeting", "date": "Date", "decisions": "Decisions", "open_actions": "Open actions",
        "turns": "Turns", "ledger": "Ledger", "search": "Search",
        "participants": "Participants", "timeline": "Topic timeline", "talk_time": "Talk time",
        "action_items": "Action items", "open_questions": "Open questions", "transcript": "Transcript",
        "changed": "Changed since the last meeting", "was": "was", "owner": "Owner", "due": "Due",
        "no_due": "no due date", "said_by": "said by", "status": "Status", "active": "active",
        "changed_status": "changed", "changes": "Changes", "from": "Earlier decision", "to": "Changed to",
        "all": "All", "open": "Open (not yet due)", "overdue": "Due (date reached)",
        "filter": "Filter", "anyone": "Anyone", "no_items": "Nothing matches.",
        "query": "Question", "results": "Results", "no_results": "Nothing found.",
        "memory_off": "The organisation's memory is off (MEMORY_SCOPE=off).",
        "best_topic": "Closest topic", "logout": "Sign out", "login": "Sign in",
        "token": "API token", "login_hint": "Type the API_TOKEN of `mithub api` once.",
        "wrong_token": "That token is not the API's.", "expired_form": "The form expired; please try again.",
        "not_found": "Not found", "extractive": "Written from the meeting's record, without an LLM.",
        "polished": "An LLM polished the topic summaries' prose; items and citations are the record's.",
        "minutes_short": "min", "seconds_short": "s", "summary": "Summary",
    },
}


def text_language(texts: Iterable[str]) -> Language:
    """Korean when enough of the texts hold Hangul (English terms in Korean talk do not make
    it English); nothing to read reads in English."""
    seen = korean = 0
    for text in texts:
        seen += 1
        korean += has_hangul(text)
    return "ko" if seen and korean >= KOREAN_SHARE * seen else "en"


def request_language(accept_language: str | None) -> Language:
    """The login page, before any meeting is known: the browser's first of Korean or English."""
    for part in (accept_language or "").split(","):
        tag = part.split(";")[0].strip().lower()
        if tag.startswith("ko"):
            return "ko"
        if tag.startswith("en"):
            return "en"
    return "en"


def duration_text(seconds: float, language: Language) -> str:
    """"4분 28초" / "4 min 28 s"."""
    labels = LABELS[language]
    minutes, rest = divmod(int(round(seconds)), 60)
    sep = "" if language == "ko" else " "
    parts = [f"{minutes}{sep}{labels['minutes_short']}"] if minutes else []
    if rest or not minutes:
        parts.append(f"{rest}{sep}{labels['seconds_short']}")
    return " ".join(parts)
