"""Slash-command options into the application's typed commands.

Sources of Advantage, Disadvantage, Eased and Hindered are typed as the CLI takes them,
comma-separated: ``1:flank,1:bless`` (an amount, optionally a label); a DC is ``MOD`` or
``MOD:label``. Who rolls is never an option: it is the member the Discord user is.
"""

from __future__ import annotations

from diceledger.domain.dice.request import RerollScope, RollKind, Target
from diceledger.domain.errors import InvalidInputError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.text import MAX_LABEL
from diceledger.infra.app.discord import Seat
from diceledger.infra.app.odds import OddsQuery, Side
from diceledger.web.discord.payload import Interaction

MAX_SOURCES = 20
AMOUNT_DIGITS = 9  # the domain caps amounts at a million; this only keeps int() cheap
BLIND_KINDS = {kind: RollKind(kind) for kind in ("effect", "damage", "check", "save")}


def sources(text: str | None) -> tuple[Amount, ...]:
    """Return ``1:flank,1:bless`` as labelled amounts."""
    if text is None or not text.strip():
        return ()
    parts = [part.strip() for part in text.split(",")]
    if len(parts) > MAX_SOURCES:
        raise InvalidInputError(f"at most {MAX_SOURCES} sources, separated by commas")
    return tuple(_amount(part) for part in parts)


def _amount(part: str) -> Amount:
    number, _, label = part.partition(":")
    digits = number.strip()
    if not (digits.isascii() and digits.isdigit()) or len(digits) > AMOUNT_DIGITS:
        raise InvalidInputError(f"'{part}' is not an amount N or N:label, e.g. 1:flank")
    return Amount(int(number), _label(label))


def _label(text: str) -> str | None:
    label = text.strip()
    if not label:
        return None
    if len(label) > MAX_LABEL or not label.isprintable():
        raise InvalidInputError(f"a label has 1 to {MAX_LABEL} printable characters")
    return label


def target(interaction: Interaction, required: bool) -> Target | None:
    """Return the target or the DC (whose target the domain derives, R4)."""
    value, dc = interaction.number("target"), interaction.text("dc")
    if value is not None and dc is not None:
        raise InvalidInputError("give a target or a dc, not both")
    if dc is not None:
        modifier, _, label = dc.partition(":")
        try:
            return Target.dc(int(modifier), _label(label))
        except ValueError:
            raise InvalidInputError(f"'{dc}' is not a DC MOD or MOD:label, e.g. 3:WIS") from None
    if value is None and required:
        raise InvalidInputError("a check needs a target or a dc")
    return None if value is None else Target(value)


def roll_request(interaction: Interaction, kind: RollKind, blind: bool = False) -> cmd.RequestRoll:
    """Return the roll, check or save the options ask for."""
    is_check = kind in (RollKind.CHECK, RollKind.SAVE)
    return cmd.RequestRoll(
        kind=kind,
        expression=interaction.text("expression") or "",
        advantage=sources(interaction.text("adv")),
        disadvantage=sources(interaction.text("dis")),
        eased=sources(interaction.text("eased")),
        hindered=sources(interaction.text("hindered")),
        median=interaction.flag("median"),
        target=target(interaction, required=is_check),
        against=interaction.text("against"),
        rerolls=interaction.number("reroll") or 0,
        reroll_scope=_scope(interaction),
        mode=RollMode.BLIND if blind else mode_of(interaction),
        on_behalf_of=interaction.text("for"),
        label=_label(interaction.text("label") or ""),
    )


def mode_of(interaction: Interaction) -> RollMode:
    """Return the roll mode the options name (public unless one is given)."""
    text = interaction.text("mode") or RollMode.PUBLIC.value
    try:
        return RollMode(text)
    except ValueError:
        raise InvalidInputError(f"a mode is public, gm, blind or self, not '{text}'") from None


def _scope(interaction: Interaction) -> RerollScope:
    text = interaction.text("scope") or RerollScope.EFFECT.value
    try:
        return RerollScope(text)
    except ValueError:
        raise InvalidInputError(f"a reroll scope is effect or damage, not '{text}'") from None


def blind_kind(interaction: Interaction) -> RollKind:
    """Return the kind of a blind roll (a plain roll unless the options say otherwise)."""
    return BLIND_KINDS[interaction.text("kind") or RollKind.EFFECT.value]


def plain_kind(interaction: Interaction) -> RollKind:
    """Return the kind of a plain roll: effect or damage."""
    return RollKind(interaction.text("kind") or RollKind.EFFECT.value)


def opposed_request(interaction: Interaction, seat: Seat) -> cmd.RequestOpposed:
    """Return the opposed check the options ask for; the other side is named, not signed."""
    on_behalf_of = interaction.text("for")
    side = CheckSide(
        on_behalf_of or seat.member,
        interaction.text("expression") or "",
        sources(interaction.text("adv")),
        sources(interaction.text("dis")),
        sources(interaction.text("eased")),
        sources(interaction.text("hindered")),
    )
    opponent = CheckSide(
        interaction.text("vs") or "",
        interaction.text("vs_expression") or "",
        sources(interaction.text("vs_adv")),
        sources(interaction.text("vs_dis")),
        sources(interaction.text("vs_eased")),
        sources(interaction.text("vs_hindered")),
    )
    return cmd.RequestOpposed(
        side,
        opponent,
        median=interaction.flag("median"),
        rerolls=interaction.number("reroll") or 0,
        reroll_scope=_scope(interaction),
        opponent_rerolls=interaction.number("vs_reroll") or 0,
        mode=RollMode.BLIND if interaction.flag("blind") else mode_of(interaction),
        on_behalf_of=on_behalf_of,
        label=_label(interaction.text("label") or ""),
    )


def odds_query(interaction: Interaction) -> OddsQuery:
    """Return the odds question the options ask."""

    def amounts(name: str) -> tuple[int, ...]:
        return tuple(source.amount for source in sources(interaction.text(name)))

    side = Side(
        interaction.text("expression") or "",
        amounts("adv"),
        amounts("dis"),
        interaction.flag("median"),
        amounts("eased"),
        amounts("hindered"),
    )
    return OddsQuery(
        side,
        target=interaction.number("target"),
        dc=interaction.number("dc"),
        reroll=interaction.number("reroll") or 0,
    )
