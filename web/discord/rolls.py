"""A roll as a Discord message: every die, as the web table shows it, within 2,000 characters.

Counted dice are **bold**, dice that do not count ~~struck~~ (the dropped dice of
advantage, a rerolled die's old face), explosion chains read ``6!6!4``, then the
modifiers, Eased and Hindered, the total and the outcome; a roll awaiting rerolls carries
one button per live die and an accept button (an opposed check: the dice of the side whose
turn it is, and the message names that side). A long roll is cut between dice, never
inside one, and always keeps its total. Links go to the roll on the web table and to its
receipt when the server knows its public URL. The last line is the checkpoint the command
produced, as ``#size · words`` (domain/fingerprint.py), for a table to compare.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from diceledger.domain.dice.engine import Die, RollState
from diceledger.domain.dice.render import render_roll
from diceledger.domain.fingerprint import note_label
from diceledger.domain.session import events as ev
from diceledger.domain.session.modes import RollMode, hidden_text
from diceledger.domain.session.rolls import replay_rounds, replay_side, replay_state
from diceledger.infra.app.results import HiddenRoll, SeenRoll, ShownRoll
from diceledger.web.discord.buttons import Pressed
from diceledger.web.discord.markdown import (
    ELLIPSIS,
    clip,
    escape,
    escape_marked,
    finish,
    shorten,
)
from diceledger.web.discord.markdown import MARKED as STYLE
from diceledger.web.discord.replies import (
    MAX_BUTTONS_PER_ROW,
    MAX_CONTENT,
    MAX_CUSTOM_ID,
    MAX_ROWS,
    Button,
    ButtonStyle,
    Message,
)

NAME = 60  # characters of a name shown in a roll's heading
TEXT = 120  # characters of a label, an origin or a reason shown
ROUNDS_SHOWN = 10  # rounds of an opposed check shown in full
BUTTON_NAME = 30  # characters of a side's name on a button


@dataclass(frozen=True, slots=True)
class Links:
    """Where the web table is, if the server knows its public URL."""

    base_url: str | None = None

    def page(self, session_id: str, roll_id: int | None = None) -> str | None:
        """Return the session's page, at one roll if given."""
        if self.base_url is None:
            return None
        anchor = "" if roll_id is None else f"#roll-{roll_id}"
        return f"{self.base_url.rstrip('/')}/s/{quote(session_id, safe='')}{anchor}"

    def receipt(self, session_id: str, roll_id: int) -> str | None:
        """Return the roll's receipt."""
        if self.base_url is None:
            return None
        sid = quote(session_id, safe="")
        return f"{self.base_url.rstrip('/')}/api/v1/sessions/{sid}/rolls/{roll_id}/receipt"

    def roll_line(self, session_id: str, roll_id: int) -> str:
        """Return the links of one roll, or nothing without a public URL."""
        page, receipt = self.page(session_id, roll_id), self.receipt(session_id, roll_id)
        if page is None or receipt is None:
            return ""
        # <...> keeps Discord from unfurling a preview of the page under every roll.
        return f"[roll #{roll_id} on the table](<{page}>) · [receipt](<{receipt}>)"


def checkpoint_line(note: str | None) -> str:
    """Return the line that ends a result: its checkpoint as people compare it, if signed."""
    return "" if note is None else f"checkpoint {note_label(note)}"


def roll_message(
    shown: ShownRoll, links: Links, ephemeral: bool = False, checkpoint: str | None = None
) -> Message:
    """Return the message of a roll: heading, sources, dice, outcome, links, buttons, and
    the checkpoint the command produced (if given)."""
    roll = shown.roll
    before = [line for line in (_heading(shown), _sources(roll.request)) if line]
    ending = (
        _outcome(shown),
        links.roll_line(shown.session_id, roll.roll_id),
        checkpoint_line(checkpoint),
    )
    after = [line for line in ending if line]
    room = MAX_CONTENT - sum(len(line) + 1 for line in before + after)
    content = "\n".join(before + _dice_lines(shown, room) + after)
    return Message(content, _buttons(shown), ephemeral)


def blind_notice(roll_id: int, text: str, checkpoint: str | None = None) -> str:
    """Return what the channel sees of a hidden roll (and the checkpoint, if given)."""
    line = checkpoint_line(checkpoint)
    return f"**#{roll_id}** · {escape(text)}" + (f"\n{line}" if line else "")


def channel_text(seen: SeenRoll) -> str:
    """Return what a member who may not see the roll reads of it."""
    if isinstance(seen, HiddenRoll):
        return seen.text
    request = seen.roll.request
    # Shown to its roller: a blind roll shown to its roller was a GM's.
    blind = seen.roll.mode is RollMode.BLIND
    return hidden_text(seen.roll.mode, request.roller, roller_is_gm=blind)


def roll_summary(seen: SeenRoll, budget: int) -> str:
    """Return one line of a roll for a list, as its viewer may see it, within ``budget``."""
    if isinstance(seen, HiddenRoll):
        return blind_notice(seen.roll_id, seen.text)
    roll = seen.roll
    request = roll.request
    head = f"**#{roll.roll_id}** {_who(request)} {request.kind}"
    if request.label:
        head += f" ({escape(clip(request.label, TEXT))})"
    if request.opponent is not None:
        return clip(f"{head}: {_opposed_summary(seen)}", budget)
    tail = _verdict_tail(seen)
    room = budget - len(head) - len(": ") - len(tail)
    return f"{head}: {finish(_single_line(replay_state(roll), room))}{tail}"


# -- lines ---------------------------------------------------------------------------------


def _who(request: ev.RollRequested) -> str:
    who = escape(clip(request.roller, NAME))
    if request.on_behalf_of != request.roller:
        who += " for " + escape(clip(request.on_behalf_of, NAME))
    return who


def _heading(shown: ShownRoll) -> str:
    roll = shown.roll
    request = roll.request
    parts = [f"**#{roll.roll_id}**", _who(request), request.kind]
    if request.opponent is not None:
        parts[-1] += " vs " + escape(clip(request.opponent.name, NAME))
    if request.label:
        parts.append(f"({escape(clip(request.label, TEXT))})")
    if roll.mode is not RollMode.PUBLIC:
        parts.append(str(roll.mode) if roll.hidden else f"{roll.mode}, revealed")
    if request.target is not None:
        target = f"vs {request.target}"
        if request.dc_modifier is not None:
            label = f" {escape(clip(request.dc_label, TEXT))}" if request.dc_label else ""
            target += f" (DC 10{request.dc_modifier:+d}{label})"
        parts.append(target)
    if request.against:
        parts.append("against " + escape(clip(request.against, TEXT)))
    return " · ".join(parts)


def _amounts(amounts: tuple[ev.Amount, ...]) -> str:
    return ", ".join(
        f"{a.amount} {escape(clip(a.label, TEXT))}" if a.label else str(a.amount) for a in amounts
    )


def _sources(request: ev.RollRequested) -> str:
    side, parts = request.side, []
    if side.advantage:
        parts.append("advantage " + _amounts(side.advantage))
    if side.disadvantage:
        parts.append("disadvantage " + _amounts(side.disadvantage))
    if request.median:
        parts.append("median")
    if request.opponent is not None:
        parts += _opposed_allowances(request)
    elif request.rerolls_granted:
        parts.append(f"rerolls {request.rerolls_granted} ({request.reroll_scope})")
    if not request.exploding:
        parts.append("no explosions")
    return clip(" · ".join(parts), MAX_CONTENT // 4)


def _opposed_allowances(request: ev.RollRequested) -> list[str]:
    assert request.opponent is not None
    granted = (
        (request.side.name, request.rerolls_granted, f" ({request.reroll_scope})"),
        (request.opponent.name, request.opponent_rerolls_granted or 0, ""),
    )
    return [
        f"{escape(clip(name, NAME))}'s rerolls {count}{scope}"
        for name, count, scope in granted
        if count
    ]


def _outcome(shown: ShownRoll) -> str:
    roll = shown.roll
    resolution = roll.resolution
    if roll.voided:
        verdict = "**void**: a GM voided it after a dispute"
    elif shown.awaiting and shown.waiting_for is not None and shown.awaits_dice:
        verdict = (
            f"awaiting **{escape(clip(shown.waiting_for, NAME))}**'s own dice: they roll "
            "them with the button (or type them in on the web table or the CLI)"
        )
    elif shown.awaiting and shown.waiting_for is not None:
        verdict = (
            f"awaiting **{escape(clip(shown.waiting_for, NAME))}**'s rerolls: "
            f"{shown.rerolls_left} left ({shown.reroll_scope.value}); pick one of their dice "
            "to reroll, or accept"
        )
    elif shown.awaiting:
        verdict = (
            f"awaiting rerolls: {shown.rerolls_left} left ({shown.reroll_scope.value}); "
            "pick a die to reroll, or accept"
        )
    elif isinstance(resolution, ev.CheckResolved) and resolution.winner is not None:
        rounds = f" after {resolution.rounds} rounds" if resolution.rounds > 1 else ""
        verdict = f"**{escape(clip(resolution.winner, NAME))} wins**{rounds}"
    elif isinstance(resolution, ev.CheckResolved) and resolution.success is not None:
        word = "success" if resolution.success else "failure"
        verdict = f"**{word}**, margin {resolution.margin:+d}"
    elif resolution is not None:
        verdict = f"total **{resolution.total}**"
    else:
        verdict = ""
    if roll.disputes and not roll.voided:
        verdict += " · disputed" + (", upheld" if roll.ruling is not None else "")
    return verdict


def _dice_lines(shown_roll: ShownRoll, room: int) -> list[str]:
    roll = shown_roll.roll
    request = roll.request
    if request.opponent is None:
        return [finish(_single_line(replay_state(roll), room))]
    rounds = replay_rounds(roll)
    shown = rounds[:ROUNDS_SHOWN]
    more = len(rounds) - len(shown)
    note = [f"… and {more} more rounds on the table"] if more else []
    note += _typed_note(shown_roll, len(shown))
    each = (room - sum(len(line) + 1 for line in note)) // len(shown) - 1
    first_name = escape(clip(request.side.name, NAME))
    second_name = escape(clip(request.opponent.name, NAME))
    lines = []
    for number, (first, second) in enumerate(shown, start=1):
        # The round still being played is not compared yet: a side may reroll.
        compared = roll.resolution is not None or number < len(rounds)
        tied = compared and second is not None and first.total == second.total
        head, tie = f"round {number}: ", " · tie" if tied else ""
        fixed = len(head) + len(first_name) + len(second_name) + len(" ") * 2 + len(" · ")
        half = (each - fixed - len(tie)) // 2
        left = f"{first_name} {_single_line(first, half)}"
        rolled = "yet to roll" if second is None else _single_line(second, half)
        right = f"{second_name} {rolled}"
        lines.append(finish(f"{head}{left} · {right}{tie}"))
    return lines + note


def _typed_note(shown_roll: ShownRoll, rounds: int) -> list[str]:
    """Return a line naming who typed in which side's dice of the rounds shown (R6)."""
    typed: dict[tuple[int, str], str] = {}
    dice = shown_roll.view.get("dice")
    for die in dice if isinstance(dice, list) else []:
        if not isinstance(die, dict) or die.get("typed_by") is None:
            continue
        number, side, typist = die.get("round"), die.get("side_name"), die.get("typed_by")
        if isinstance(number, int) and number <= rounds and isinstance(side, str):
            typed.setdefault((number, side), str(typist))
    if not typed:
        return []
    parts = [
        f"round {number} {escape(clip(side, NAME))} by {escape(clip(typist, NAME))}"
        for (number, side), typist in typed.items()
    ]
    return [finish("typed in: " + " · ".join(parts))]


def _single_line(state: RollState, room: int) -> str:
    """Return the escaped, marked dice line of one roll state, its total always kept."""
    dice, _, total = escape_marked(render_roll(state, STYLE)).rpartition(" = ")
    ending = f" = {total}"
    return shorten(dice, max(room - len(ending), len(ELLIPSIS))) + ending


def _verdict_tail(shown: ShownRoll) -> str:
    roll = shown.roll
    resolution = roll.resolution
    tail = ""
    if shown.awaiting:
        tail = " (awaiting rerolls)"
    elif isinstance(resolution, ev.CheckResolved) and resolution.success is not None:
        tail = f" vs {resolution.target}: " + ("success" if resolution.success else "failure")
    return tail + (" (void)" if roll.voided else "")


def _opposed_summary(shown: ShownRoll) -> str:
    roll = shown.roll
    request, resolution = roll.request, roll.resolution
    assert request.opponent is not None
    first, second = replay_rounds(roll)[-1]
    other = "yet to roll" if second is None else str(second.total)
    text = (
        f"{escape(clip(request.side.name, NAME))} {first.total} vs "
        f"{escape(clip(request.opponent.name, NAME))} {other}"
    )
    if isinstance(resolution, ev.CheckResolved) and resolution.winner is not None:
        text += f": {escape(clip(resolution.winner, NAME))} wins"
    elif shown.awaits_dice and shown.waiting_for is not None:
        text += f" (awaiting {escape(clip(shown.waiting_for, NAME))}'s dice)"
    elif shown.awaiting:
        text += " (awaiting rerolls)"
    return text


# -- buttons -------------------------------------------------------------------------------


def _buttons(shown: ShownRoll) -> tuple[tuple[Button, ...], ...]:
    roll = shown.roll
    if not shown.awaiting:
        return ()
    if roll.request.opponent is None:
        accept, owner, state = Pressed(shown.session_id, roll.roll_id), "", replay_state(roll)
    else:
        turn = shown.turn
        if turn is None or shown.waiting_for is None:
            return ()
        owner = clip(shown.waiting_for, BUTTON_NAME)  # whose dice: named on the buttons
        if shown.awaits_dice:
            side = Pressed(shown.session_id, roll.roll_id, turn=turn, side=True)
            if len(side.custom_id) > MAX_CUSTOM_ID:
                return ()
            return ((Button(f"Roll ({owner})", side.custom_id, ButtonStyle.SUCCESS),),)
        accept = Pressed(shown.session_id, roll.roll_id, turn=turn)
        state = replay_side(roll, turn.side, turn.round)
    live = [state.dice[index] for index in state.live]
    # One button is Accept; the rest go to the live dice with the lowest faces, in order.
    room = MAX_ROWS * MAX_BUTTONS_PER_ROW - 1
    chosen = sorted(sorted(live, key=lambda die: die.face)[:room], key=lambda die: die.index)
    label = f"Accept ({owner})" if owner else "Accept"
    buttons = [Button(label, accept.custom_id, ButtonStyle.SUCCESS)]
    buttons += [_reroll_button(accept, die, owner) for die in chosen]
    if any(len(button.custom_id) > MAX_CUSTOM_ID for button in buttons):
        return ()  # an imported session with a very long id: reroll on the web table
    return tuple(
        tuple(buttons[start : start + MAX_BUTTONS_PER_ROW])
        for start in range(0, len(buttons), MAX_BUTTONS_PER_ROW)
    )


def _reroll_button(accept: Pressed, die: Die, owner: str) -> Button:
    whose = f"{owner}'s " if owner else ""
    label = f"Reroll {whose}d{die.sides} #{die.index} ({die.face})"
    pressed = Pressed(accept.session_id, accept.roll_id, die.index, accept.turn)
    return Button(label, pressed.custom_id)
