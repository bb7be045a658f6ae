"""The messages of everything but a single roll: sessions, invites, history, odds, stats.

Every name and reason in them is escaped (markdown.escape) and every message stays within
Discord's 2,000 characters.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from diceledger.domain.json import JsonValue
from diceledger.domain.projections.report import PlayerReport
from diceledger.infra.app.access import Invite
from diceledger.infra.app.discord import Seat
from diceledger.infra.app.odds import SingleOdds, VersusOdds, describe
from diceledger.infra.app.results import (
    DisputeResult,
    SeenRoll,
    SessionEndResult,
    SessionStartedResult,
)
from diceledger.web.discord.markdown import clip, escape
from diceledger.web.discord.replies import MAX_CONTENT
from diceledger.web.discord.rolls import Links, checkpoint_line, roll_summary

NAME = 60
TEXT = 300


def _link(links: Links, session_id: str, text: str) -> str:
    page = links.page(session_id)
    return f"\n[{text}](<{page}>)" if page else ""


def started_text(started: SessionStartedResult, links: Links) -> str:
    """Return the channel's news of a new session."""
    return (
        f"**{escape(clip(started.title, TEXT))}** starts in this channel "
        f"(session `{started.session_id}`), with **{escape(clip(started.gm, NAME))}** as GM.\n"
        f"Seed commitment: `{started.commitment}`\n"
        "Players join with an invite code from the GM."
        + _link(links, started.session_id, "the table on the web")
    )


def invite_text(invite: Invite) -> str:
    """Return the GM's private invite: the code, shown this once, and until when it works."""
    until = int(invite.expires_at.timestamp())
    return (
        f"Invite code for session `{invite.session_id}`, single use, "
        f"valid until <t:{until}:f>:\n`{invite.code}`\n"
        f"A player joins with `/dl join code:{invite.code}` in this channel."
    )


def joined_text(seat: Seat) -> str:
    """Return the channel's news of a new member."""
    role = "a GM" if seat.is_gm else "a player"
    return f"**{escape(clip(seat.member, NAME))}** joins session `{seat.session_id}` as {role}."


def dispute_text(result: DisputeResult) -> str:
    """Return the channel's news of a dispute."""
    return (
        f"**{escape(clip(result.by, NAME))}** disputes roll **#{result.roll_id}**: "
        f"{escape(clip(result.note or '', TEXT))}\nA GM reviews it and rules."
        + _ending(result.checkpoint)
    )


def _ending(checkpoint: str | None) -> str:
    line = checkpoint_line(checkpoint)
    return f"\n{line}" if line else ""


def verify_text(session_id: str, checkpoint: str, links: Links) -> str:
    """Return where a member verifies the session, and the checkpoint to compare now."""
    page = links.page(session_id)
    where = (
        f"Verify session `{session_id}` in your browser: <{page}/verify>"
        if page
        else f"Verify session `{session_id}` on its web table's Verify page "
        "(this server names no public URL)."
    )
    return (
        f"{where}\nThe session's {checkpoint_line(checkpoint)}. Everyone at the table who "
        "reads the same size and words saw the same log."
    )


def ended_text(ended: SessionEndResult, links: Links, checkpoint: str | None = None) -> str:
    """Return the channel's news of the end, with the seed anyone can now check."""
    session_id, epoch = ended.session_id, ended.last_epoch
    return (
        f"Session `{session_id}` has ended. Seed of epoch {epoch.number}, now revealed:\n"
        f"`{epoch.seed}`\n"
        "With it anyone can re-derive every die of the session and check the whole log."
        + _link(links, session_id, "verify on the web table")
        + _ending(checkpoint)
    )


def history_text(session_id: str, rolls: Sequence[SeenRoll], links: Links) -> str:
    """Return the last rolls, one line each, as the channel may see them."""
    if not rolls:
        return f"No rolls yet in session `{session_id}`."
    head = f"The last {len(rolls)} roll(s) of session `{session_id}`:"
    footer = _link(links, session_id, "the whole log on the web table")
    room = MAX_CONTENT - len(head) - len(footer)
    each = room // len(rolls) - 1
    lines = [roll_summary(roll, each) for roll in rolls]
    return "\n".join([head, *lines]) + footer


def stats_text(session_id: str, reports: Sequence[PlayerReport]) -> str:
    """Return one line of statistics per player."""
    if not reports:
        return f"No statistics yet in session `{session_id}`."
    head = f"Statistics of session `{session_id}` (as you may see them):"
    each = (MAX_CONTENT - len(head)) // len(reports) - 1
    return "\n".join([head, *(clip(_report_line(report), each) for report in reports)])


def _report_line(report: PlayerReport) -> str:
    groups = report.groups
    rolls, outcomes, luck = groups["rolls"], groups["outcomes"], groups["luck"]
    count = rolls["total"]
    parts = [f"**{escape(clip(report.player, NAME))}**: {count} roll{'' if count == 1 else 's'}"]
    if outcomes["made"]:
        parts.append(f"checks won {outcomes['won']}/{outcomes['made']}")
    if luck["rated"]:
        parts.append(
            f"expected {_figure(luck['expected'])}, luck {_signed(luck['luck'])}"
            f" (z {_figure(luck['z_score'])})"
        )
    explosions, rerolls = groups["explosions"], groups["rerolls"]
    if explosions["count"]:
        parts.append(f"{explosions['count']} explosions")
    if rerolls["spent"]:
        parts.append(f"{rerolls['spent']} rerolls spent (gain {_signed(rerolls['gain'])})")
    disputes = groups["disputes"]
    if disputes["raised"]:
        parts.append(f"{disputes['raised']} disputes")
    return " · ".join(parts)


def _figure(value: JsonValue) -> str:
    return "n/a" if value is None else f"{value:.2f}" if isinstance(value, float) else str(value)


def _signed(value: JsonValue) -> str:
    if isinstance(value, float):
        return f"{value:+.2f}"
    if isinstance(value, int):
        return f"{value:+d}"
    return "n/a"


def odds_text(result: SingleOdds | VersusOdds) -> str:
    """Return exact odds as one or two lines."""
    if isinstance(result, VersusOdds):
        odds = result.odds
        return (
            f"{escape(describe(result.spec, 0))} versus {escape(describe(result.other, 0))}\n"
            f"win **{_percent(odds.win)}** · lose {_percent(odds.lose)} · "
            f"tie {_percent(odds.tie)} (a tie rolls again)"
        )
    text = escape(describe(result.spec, result.rerolls))
    mean = f"mean {float(result.distribution.mean):.2f}"
    success = result.success
    if success is None or result.target is None:
        return f"{text}: {mean}"
    return (
        f"{text} vs {result.target}: **{_percent(success)}** ({escape(str(success))}) · {mean}"
    )[:MAX_CONTENT]


def _percent(value: Fraction) -> str:
    return f"{float(value) * 100:.2f}%"
