"""Synthetic Korean meetings for the topic detector tests: one or two topics, several speakers,
backchannels mixed in, so the semantic channel has to find the change on its own."""

from __future__ import annotations

from mithub.context.models import Utterance

from .conftest import utterance

BUDGET = [
    "올해 마케팅 예산을 다시 검토해야 할 것 같습니다",
    "광고비 지출이 지난 분기보다 이십 퍼센트 늘었어요",
    "예산 초과분은 어느 항목에서 줄일 수 있을까요",
    "온라인 광고 단가가 계속 오르고 있어서 비용 부담이 큽니다",
    "분기별 집행 실적을 보면 전시회 비용이 가장 컸습니다",
    "재무팀에서 하반기 예산 삭감을 요청했습니다",
    "광고 대행사 수수료도 재협상이 필요해 보입니다",
    "남은 예산으로 신제품 캠페인을 진행할 수 있을지 모르겠어요",
    "비용 대비 효과가 낮은 채널은 집행을 중단하죠",
    "예산 배분표를 엑셀로 정리해서 공유하겠습니다",
    "검색 광고 클릭 단가가 지난달보다 올랐습니다",
    "전시회 부스 비용을 절반으로 줄이는 방안도 있습니다",
    "연간 마케팅 비용 총액은 십이억 원입니다",
    "예산 집행률이 아직 육십 퍼센트에 머물러 있어요",
    "비용 절감안은 다음 주까지 재무팀에 제출해야 합니다",
]
HIRING = [
    "개발팀 신규 채용 계획을 이야기해 보죠",
    "백엔드 개발자 두 명을 이번 분기에 뽑아야 합니다",
    "면접 일정은 인사팀과 조율하고 있습니다",
    "지원자 이력서가 지금까지 사십 건 들어왔어요",
    "경력직 연봉 수준이 시장보다 낮아서 지원자가 적습니다",
    "코딩 테스트를 면접 전에 보는 게 좋겠습니다",
    "신입 개발자 교육 프로그램도 같이 준비해야 해요",
    "채용 공고를 개발자 커뮤니티에도 올리죠",
    "면접관은 팀장 두 명과 시니어 개발자 한 명으로 하겠습니다",
    "합격자 입사일은 다음 달 초로 잡으면 됩니다",
    "추천 채용 보상금을 올리면 지원자가 늘 것 같아요",
    "프런트엔드 개발자 채용은 내년으로 미루죠",
    "인사팀이 헤드헌터 계약을 검토하고 있습니다",
    "수습 기간은 삼 개월로 하겠습니다",
    "채용 확정 인원은 모두 네 명입니다",
]
BACKCHANNELS = ["네", "음", "네 맞아요", "그렇죠"]
SPEAKERS = [("kim", "김민수"), ("lee", "이지은"), ("park", "박서준")]


def topic_turns(sentences: list[str], count: int, offset: int = 0) -> list[tuple[str, str, str]]:
    """(speaker id, name, text) for `count` turns; every fourth turn is a backchannel."""
    out = []
    for i in range(count):
        speaker_id, name = SPEAKERS[(i + offset) % len(SPEAKERS)]
        if i % 4 == 3:
            text = BACKCHANNELS[i % len(BACKCHANNELS)]
        else:
            text = sentences[(i * 7 + offset) % len(sentences)]
        out.append((speaker_id, name, text))
    return out


def meeting(*parts: list[tuple[str, str, str]]) -> list[Utterance]:
    """Utterances with seq 1.. for the concatenated parts."""
    turns = [turn for part in parts for turn in part]
    return [utterance(i + 1, text, speaker, name) for i, (speaker, name, text) in enumerate(turns)]
