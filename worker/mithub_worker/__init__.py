"""MitHub's LiveKit worker: the bot that joins rooms, transcribes every participant into the
meeting memory and answers agent calls in the room. Depends on the core (`mithub`); the core
never imports it.

    server.py         the livekit-agents AgentServer: dispatch, one job per room, load
    meeting.py        MeetingBot: one meeting in one room (participants, speech, lifecycle)
    transcription.py  one participant's microphone -> STT stream -> transcripts
    stt.py            the STT providers (local faster-whisper, clova, deepgram, openai)
    calls.py          agent calls from chat, wake phrase and RPC; replies in chat
    commands.py       parsing what participants ask
    tokens.py, cli.py `mithub token`, `mithub worker`
"""
