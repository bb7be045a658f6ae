"""A campaign: one group's sessions across evenings, and who may add to it.

A campaign is an index over sessions, never a fact a session's proof depends on: each
session keeps its own log, chain and checkpoints, and verifies alone (docs/campaigns.md).
The rules here are the campaign's own: its title, and who may start a session in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from diceledger.domain.errors import CommandRefusedError, PermissionDeniedError
from diceledger.domain.session.text import MAX_TEXT, check_name, check_text

GM = "gm"


@dataclass(frozen=True, slots=True)
class Campaign:
    """A campaign as recorded: its id, title, who started it, and its sessions in order."""

    campaign_id: str
    title: str
    started_by: str
    sessions: tuple[str, ...]


def campaign_title(title: str, started_by: str) -> str:
    """Return the title a campaign is started with, refusing an empty or unprintable one."""
    check_name(started_by, "the campaign's starter")
    check_text(title, "a title", MAX_TEXT, required=True)
    return title.strip()


def may_add_session(
    campaign: Campaign, actor: str, roles: Mapping[str, Mapping[str, str]], via: str | None
) -> None:
    """Refuse ``actor`` adding a session to ``campaign`` unless a GM of the group.

    ``roles`` holds each of the campaign's sessions' members and roles. Acting through a
    session (``via``, the session a credential belongs to), the actor must be a GM of that
    session, which must be the campaign's. Acting as a name (the store's owner on the
    command line), the campaign's starter or a GM of any of its sessions may.
    """
    if via is not None:
        if roles.get(via, {}).get(actor) != GM:
            raise PermissionDeniedError(
                f"only a GM of one of the sessions of campaign '{campaign.campaign_id}' "
                "may add a session to it"
            )
        return
    if actor == campaign.started_by:
        return
    if not any(members.get(actor) == GM for members in roles.values()):
        raise PermissionDeniedError(
            f"only the campaign's starter or a GM of one of its sessions may add a session "
            f"to campaign '{campaign.campaign_id}'"
        )


def refuse_second_campaign(session_id: str, campaign_id: str | None) -> None:
    """Refuse to add a session that already belongs to a campaign."""
    if campaign_id is not None:
        raise CommandRefusedError(
            f"session '{session_id}' already belongs to campaign '{campaign_id}'"
        )
