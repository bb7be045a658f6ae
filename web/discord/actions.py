"""Each `/dl` subcommand and each button: find the member, call the application, reply.

Like every route of the HTTP face, an action does three things: read the interaction into
a typed command, call one method of the application layer with the acting member, and
render the result. The member is found from the Discord user id the interaction is signed
with; a user who is not a member of the channel's session is refused before anything is
asked of the session. A refusal raises the error tree; the caller words it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from diceledger.domain.errors import CommandRefusedError, InvalidInputError, TurnPassedError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.visibility import EVERYONE
from diceledger.infra.app.access import DEFAULT_INVITE_TTL
from diceledger.infra.app.application import Application
from diceledger.infra.app.discord import DiscordTables, Seat
from diceledger.infra.app.odds import odds_of
from diceledger.infra.app.results import HiddenRoll, RollResult
from diceledger.infra.app.roll_form import FormKind
from diceledger.web.discord import options, texts
from diceledger.web.discord.buttons import parse_custom_id
from diceledger.web.discord.payload import Interaction, InteractionType
from diceledger.web.discord.replies import Message, Reply
from diceledger.web.discord.rolls import Links, blind_notice, channel_text, roll_message

DEFAULT_HISTORY = 5
# Answers that hold a secret are never kept for a redelivery (a second invite is harmless).
SECRET_ANSWERS = frozenset({"invite"})
# Answers only their asker sees, known before they are computed (a deferred reply says so).
PRIVATE_ANSWERS = frozenset({"invite", "blind", "stats", "verify"})
# Subcommands that draw dice; every button (a reroll, an accept) counts as one too.
DICE_ANSWERS = frozenset({"check", "save", "roll", "opposed", "blind"})

Action = Callable[["TableActions", Interaction], Reply]


class TableActions:
    """The Discord face's actions over the application and the Discord bindings."""

    def __init__(self, app: Application, tables: DiscordTables, links: Links) -> None:
        self._app = app
        self._tables = tables
        self._links = links

    def run(self, interaction: Interaction) -> Reply:
        """Answer one interaction: a subcommand, or a button of a roll."""
        if interaction.type is InteractionType.MESSAGE_COMPONENT:
            return self.button(interaction)
        action = ACTIONS.get(interaction.subcommand)
        if action is None:
            raise InvalidInputError(f"unknown subcommand {interaction.subcommand!r}")
        return action(self, interaction)

    # -- sessions and members ----------------------------------------------------------------

    def start(self, interaction: Interaction) -> Reply:
        """Start a session bound to the channel; the caller is its GM."""
        title = interaction.text("title") or ""
        name = interaction.text("name")
        started = self._tables.start(interaction.channel_id, interaction.user, title, name)
        return Reply(Message(texts.started_text(started, self._links)))

    def invite(self, interaction: Interaction) -> Reply:
        """Give the GM a single-use invite code, privately."""
        minutes = interaction.number("minutes")
        ttl = DEFAULT_INVITE_TTL if minutes is None else timedelta(minutes=minutes)
        made = self._tables.invite(self._seat(interaction), ttl)
        return Reply(Message(texts.invite_text(made), ephemeral=True))

    def join(self, interaction: Interaction) -> Reply:
        """Make the Discord user a member of the channel's session, by invite."""
        code = interaction.text("code") or ""
        seat = self._tables.join(
            interaction.channel_id,
            interaction.user,
            code,
            interaction.text("name"),
            interaction.text("client_seed") or "",
        )
        return Reply(Message(texts.joined_text(seat)))

    def end(self, interaction: Interaction) -> Reply:
        """End the session (GM); its seed is revealed."""
        seat = self._seat(interaction)
        ended = self._app.end_session(seat.member, seat.session_id)
        return Reply(Message(texts.ended_text(ended, self._links, ended.checkpoint)))

    # -- rolls -------------------------------------------------------------------------------

    def check(self, interaction: Interaction) -> Reply:
        """Make a check for the member (or, for a GM, whoever they name)."""
        return self._roll(interaction, "check")

    def save(self, interaction: Interaction) -> Reply:
        """Make a save against what the options name."""
        return self._roll(interaction, "save")

    def roll(self, interaction: Interaction) -> Reply:
        """Roll dice for an effect or damage."""
        return self._roll(interaction, options.plain_kind(interaction))

    def _roll(self, interaction: Interaction, kind: FormKind) -> Reply:
        seat = self._seat(interaction)
        command = options.roll_request(interaction, kind).command(seat.member)
        result = self._app.request_roll(seat.member, seat.session_id, command)
        return (
            self._blind(result)
            if command.mode is not RollMode.PUBLIC
            else Reply(self._shown(result))
        )

    def opposed(self, interaction: Interaction) -> Reply:
        """Roll an opposed check for the member (or, for a GM, whoever they name).

        Each side may hold rerolls; the message carries the buttons of the side on turn.
        A GM's blind check is answered like ``/dl blind``.
        """
        seat = self._seat(interaction)
        command = options.opposed_request(interaction).command(seat.member)
        result = self._app.request_roll(seat.member, seat.session_id, command)
        hidden = command.mode is not RollMode.PUBLIC
        return self._blind(result) if hidden else Reply(self._shown(result))

    def blind(self, interaction: Interaction) -> Reply:
        """Roll blind (GM): the dice only to the GM; the channel learns that a roll happened."""
        seat = self._seat(interaction)
        form = options.roll_request(interaction, options.blind_kind(interaction), blind=True)
        command = form.command(seat.member)
        return self._blind(self._app.request_roll(seat.member, seat.session_id, command))

    def reveal(self, interaction: Interaction) -> Reply:
        """Show a blind roll to the channel (GM)."""
        seat = self._seat(interaction)
        result = self._app.reveal_roll(seat.member, seat.session_id, _roll_id(interaction))
        return Reply(self._shown(result))

    def dispute(self, interaction: Interaction) -> Reply:
        """Dispute a roll the member can see."""
        seat = self._seat(interaction)
        reason = interaction.text("reason") or ""
        result = self._app.open_dispute(seat.member, seat.session_id, _roll_id(interaction), reason)
        return Reply(Message(texts.dispute_text(result)))

    def verify(self, interaction: Interaction) -> Reply:
        """Give the member the verify page of the session and its checkpoint now, privately."""
        seat = self._seat(interaction)
        found = self._app.proofs.checkpoint(seat.session_id)
        text = texts.verify_text(seat.session_id, found.note, self._links)
        return Reply(Message(text, ephemeral=True))

    def button(self, interaction: Interaction) -> Reply:
        """Reroll one die, accept, or roll one's own side, from a roll's buttons.

        Of an opposed check, the side whose turn it is; the application refuses anyone
        else, as it refuses anyone but the roller of a single roll.
        """
        pressed = parse_custom_id(interaction.custom_id)
        user_id = interaction.user.user_id
        seat = self._tables.seat_in(pressed.session_id, interaction.channel_id, user_id)
        try:
            if pressed.side:
                rolled = cmd.RollSide(pressed.roll_id, turn=pressed.turn)
                result = self._app.roll_side(seat.member, seat.session_id, rolled)
            elif pressed.die is not None:
                command = cmd.Reroll(pressed.roll_id, (pressed.die,), turn=pressed.turn)
                result = self._app.reroll(seat.member, seat.session_id, command)
            else:
                turn = pressed.turn
                result = self._app.accept(seat.member, seat.session_id, pressed.roll_id, None, turn)
        except TurnPassedError:
            # The turn is checked where the command is decided, under the session's lock:
            # of two clicks on one turn's button, only the first takes it.
            raise CommandRefusedError(
                f"roll {pressed.roll_id} has moved on since this button was shown; "
                "use the buttons it shows now"
            ) from None
        return Reply(self._shown(result), update=True)  # the message keeps who may see it

    # -- reads -------------------------------------------------------------------------------

    def odds(self, interaction: Interaction) -> Reply:
        """Show the exact odds of a roll; anyone may ask, in any channel."""
        return Reply(Message(texts.odds_text(odds_of(options.odds_query(interaction)))))

    def history(self, interaction: Interaction) -> Reply:
        """Show the last rolls of the channel's session, as the channel may see them."""
        seat = self._seat(interaction)
        # The answer is posted in the channel: its rolls as every member may see them.
        session = self._app.session(EVERYONE, seat.session_id)
        count = interaction.number("n") or DEFAULT_HISTORY
        last = session.rolls[-count:]
        return Reply(Message(texts.history_text(seat.session_id, last, self._links)))

    def stats(self, interaction: Interaction) -> Reply:
        """Show the session's statistics as the member may see them, privately."""
        seat = self._seat(interaction)
        player = interaction.text("player")
        result = self._app.statistics(seat.member, seat.session_id, player)
        return Reply(Message(texts.stats_text(seat.session_id, result.reports), ephemeral=True))

    # -- helpers -----------------------------------------------------------------------------

    def _seat(self, interaction: Interaction) -> Seat:
        return self._tables.seat(interaction.channel_id, interaction.user.user_id)

    def _shown(self, result: RollResult, ephemeral: bool = False) -> Message:
        seen = result.roll
        if isinstance(seen, HiddenRoll):
            notice = blind_notice(seen.roll_id, seen.text, result.checkpoint)
            return Message(notice, ephemeral=ephemeral)
        return roll_message(seen, self._links, ephemeral, result.checkpoint)

    def _blind(self, result: RollResult) -> Reply:
        text = channel_text(result.roll)
        notice = Message(blind_notice(result.roll.roll_id, text, result.checkpoint))
        return Reply(self._shown(result, ephemeral=True), follow_ups=(notice,))


# Each subcommand of `/dl` and the action that answers it.
ACTIONS: dict[str, Action] = {
    "start": TableActions.start,
    "invite": TableActions.invite,
    "join": TableActions.join,
    "check": TableActions.check,
    "save": TableActions.save,
    "roll": TableActions.roll,
    "opposed": TableActions.opposed,
    "blind": TableActions.blind,
    "reveal": TableActions.reveal,
    "dispute": TableActions.dispute,
    "verify": TableActions.verify,
    "end": TableActions.end,
    "odds": TableActions.odds,
    "history": TableActions.history,
    "stats": TableActions.stats,
}


def _roll_id(interaction: Interaction) -> int:
    roll_id = interaction.number("roll")
    if roll_id is None:
        raise InvalidInputError("name the roll by its number")
    return roll_id


def private_answer(interaction: Interaction) -> bool:
    """Tell whether only the asker sees the answer, before it is computed."""
    blind_opposed = interaction.subcommand == "opposed" and interaction.flag("blind")
    # A roll in any mode but public answers its roller alone; the channel gets a notice.
    private = interaction.subcommand in DICE_ANSWERS and interaction.text("mode") not in (
        None,
        RollMode.PUBLIC.value,
    )
    return interaction.subcommand in PRIVATE_ANSWERS or blind_opposed or private
