"""Slash-command options into the application's roll form and queries.

Sources of Advantage, Disadvantage, Eased and Hindered are typed as the CLI takes them,
comma-separated: ``1:flank,1:bless`` (an amount, optionally a label); a DC is ``MOD`` or
``MOD:label``. Who rolls is never an option: it is the member the Discord user is.
"""

from __future__ import annotations

from diceledger.domain.dice.request import RerollScope
from diceledger.domain.errors import InvalidInputError
from diceledger.domain.session.events import Amount
from diceledger.domain.session.modes import RollMode
from diceledger.infra.app.odds import OddsQuery, Side
from diceledger.infra.app.roll_form import MAX_SOURCES, FormKind, OtherSide, RollForm
from diceledger.web.discord.payload import Interaction

AMOUNT_DIGITS = 9  # the domain caps amounts at a million; this only keeps int() cheap
PLAIN_KINDS: dict[str, FormKind] = {"effect": "effect", "damage": "damage"}
BLIND_KINDS: dict[str, FormKind] = {**PLAIN_KINDS, "check": "check", "save": "save"}


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


def _label(text: str | None) -> str | None:
    """Return a label as typed, or None when blank; its limits are the session's."""
    label = (text or "").strip()
    return label or None


def _dc(interaction: Interaction) -> tuple[int | None, str | None]:
    """Return a DC's MOD and label, typed ``MOD`` or ``MOD:label``."""
    dc = interaction.text("dc")
    if dc is None:
        return None, None
    modifier, _, label = dc.partition(":")
    try:
        return int(modifier), _label(label)
    except ValueError:
        raise InvalidInputError(f"'{dc}' is not a DC MOD or MOD:label, e.g. 3:WIS") from None


def roll_request(interaction: Interaction, kind: FormKind, blind: bool = False) -> RollForm:
    """Return the roll form of a roll, check or save the options ask for."""
    dc, dc_label = _dc(interaction)
    return RollForm(
        kind=kind,
        expression=interaction.text("expression") or "",
        adv=sources(interaction.text("adv")),
        dis=sources(interaction.text("dis")),
        eased=sources(interaction.text("eased")),
        hindered=sources(interaction.text("hindered")),
        median=interaction.flag("median"),
        target=interaction.number("target"),
        dc=dc,
        dc_label=dc_label,
        against=interaction.text("against"),
        reroll=interaction.number("reroll") or 0,
        reroll_scope=_scope(interaction),
        mode=_mode(interaction),
        blind=blind,
        for_=interaction.text("for"),
        label=_label(interaction.text("label")),
    )


def _mode(interaction: Interaction) -> RollMode | None:
    """Return the roll mode the options name, if they name one."""
    text = interaction.text("mode")
    if text is None:
        return None
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


def blind_kind(interaction: Interaction) -> FormKind:
    """Return the kind of a blind roll (a plain roll unless the options say otherwise)."""
    return _kind_of(interaction, BLIND_KINDS)


def plain_kind(interaction: Interaction) -> FormKind:
    """Return the kind of a plain roll: effect or damage."""
    return _kind_of(interaction, PLAIN_KINDS)


def _kind_of(interaction: Interaction, kinds: dict[str, FormKind]) -> FormKind:
    text = interaction.text("kind") or "effect"
    if text not in kinds:
        raise InvalidInputError(f"a kind here is {' or '.join(kinds)}, not '{text}'")
    return kinds[text]


def opposed_request(interaction: Interaction) -> RollForm:
    """Return the roll form of the opposed check the options ask for; the other side is
    named, not signed."""
    return RollForm(
        kind="opposed",
        expression=interaction.text("expression") or "",
        adv=sources(interaction.text("adv")),
        dis=sources(interaction.text("dis")),
        eased=sources(interaction.text("eased")),
        hindered=sources(interaction.text("hindered")),
        median=interaction.flag("median"),
        reroll=interaction.number("reroll") or 0,
        reroll_scope=_scope(interaction),
        mode=_mode(interaction),
        blind=interaction.flag("blind"),
        for_=interaction.text("for"),
        label=_label(interaction.text("label")),
        vs=OtherSide(
            interaction.text("vs") or "",
            interaction.text("vs_expression") or "",
            sources(interaction.text("vs_adv")),
            sources(interaction.text("vs_dis")),
            sources(interaction.text("vs_eased")),
            sources(interaction.text("vs_hindered")),
            interaction.number("vs_reroll") or 0,
            interaction.flag("vs_rolls_own"),
        ),
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
