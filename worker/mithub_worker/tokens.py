"""LiveKit access tokens for trying the bot: a participant's join token (`mithub token`) and
the bot's own hidden token when it joins a room directly (`mithub worker connect`)."""

from __future__ import annotations

from datetime import timedelta

from livekit import api

from mithub.config import LiveKitConfig, get_livekit_config
from mithub.errors import ConfigError


def join_token(
    room: str,
    identity: str,
    *,
    name: str | None = None,
    ttl: timedelta = timedelta(hours=6),
    hidden: bool = False,
    agent: bool = False,
    dispatch_agent: str | None = None,
    config: LiveKitConfig | None = None,
) -> str:
    """A JWT that lets `identity` join `room`, publish audio and chat, and subscribe. With
    `dispatch_agent`, joining also asks LiveKit to dispatch that agent (the bot) to the room."""
    config = config or get_livekit_config()
    secret = config.api_secret.get_secret_value()
    if not secret:
        raise ConfigError("LIVEKIT_API_SECRET is not set; use the secret of LIVEKIT_API_KEY "
                          f"({config.api_key}) from your LiveKit server's keys")
    if not room.strip() or not identity.strip():
        raise ConfigError("a token needs a room name and a participant identity")
    grants = api.VideoGrants(
        room_join=True, room=room, can_publish=True, can_subscribe=True,
        can_publish_data=True, hidden=hidden, agent=agent,
    )
    token = api.AccessToken(config.api_key, secret).with_identity(identity).with_ttl(ttl)
    if name:
        token = token.with_name(name)
    if agent:
        token = token.with_kind("agent")
    if dispatch_agent:
        token = token.with_room_config(api.RoomConfiguration(
            agents=[api.RoomAgentDispatch(agent_name=dispatch_agent)]))
    return token.with_grants(grants).to_jwt()
