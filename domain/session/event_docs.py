"""What each field of the session events means, and the values it may hold.

The published JSON Schema (``domain.event_schema``) takes its types from the event classes
and its words and closed sets from here, so a field is described once. Every field of
every event and record needs an entry: the schema generator refuses a field without one.
"""

from __future__ import annotations

from dataclasses import dataclass

from diceledger.domain.dice.engine import Reason
from diceledger.domain.dice.ladder import SIZES
from diceledger.domain.dice.request import MAX_AMOUNT, RerollScope, RollKind
from diceledger.domain.dice.sources import ALGORITHM, WORDS_PER_BLOCK, Provenance
from diceledger.domain.session.commands import Ruling
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.sheets import (
    ATTRIBUTE_PATTERN,
    MAX_SHEET_VALUE,
    QUALITY_PATTERN,
    SAVED_KINDS,
    SAVED_ROLL_PATTERN,
    SHEET_RIGHTS,
)
from diceledger.domain.session.state import GM, PLAYER

HEX_64 = "^[0-9a-f]{64}$"


@dataclass(frozen=True, slots=True)
class FieldDoc:
    """The meaning of one field, and the constraints its values obey beyond their type."""

    text: str
    choices: tuple[str | int, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    pattern: str | None = None


def _values(
    enum: type[Reason | RollKind | RerollScope | Provenance | Ruling | RollMode],
) -> tuple[str, ...]:
    return tuple(member.value for member in enum)


ROLL_ID = FieldDoc("The roll this event belongs to (RollRequested.roll_id).", minimum=1)
ACTOR = FieldDoc("The member who did it.")
SIDE = FieldDoc(
    "Which side of an opposed check: 0 the request's side, 1 its opponent; 0 for any other roll.",
    minimum=0,
    maximum=1,
)
ROUND = FieldDoc("The round of an opposed check, from 1; 1 for any other roll.", minimum=1)
AMOUNTS = "One entry per labelled source; the amounts add up."
ISO_UTC = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$"
DECIDED_AT = FieldDoc(
    "When the command was decided (ISO 8601 UTC, like recorded_at), which the dispute window "
    "after the end is judged by; null if not known.",
    pattern=ISO_UTC,
)

RECORDS: dict[str, dict[str, FieldDoc]] = {
    "Amount": {
        "amount": FieldDoc("How much this source gives.", minimum=0, maximum=MAX_AMOUNT),
        "label": FieldDoc("Where it comes from (e.g. flank, bless), if named."),
    },
    "CheckSide": {
        "name": FieldDoc("Who this side rolls for: a member or an NPC's name."),
        "expression": FieldDoc(
            "The roll expression as typed (docs/rules.md, R2), with any sheet reference "
            "(@STR) written out as the labelled number it stood for (3[STR])."
        ),
        "advantage": FieldDoc(f"Advantage sources (R7). {AMOUNTS}"),
        "disadvantage": FieldDoc(f"Disadvantage sources (R7). {AMOUNTS}"),
        "eased": FieldDoc(f"Eased sources, added to the result (R9). {AMOUNTS}"),
        "hindered": FieldDoc(f"Hindered sources, taken from the result (R9). {AMOUNTS}"),
    },
    "SheetValue": {
        "use": FieldDoc(
            "Where the value went: a side's roll, or the DC (R4).", choices=("roll", "dc")
        ),
        "side": FieldDoc(
            "For a roll, the side whose expression referenced it (0 the request's, 1 its "
            "opponent); 0 for a DC.",
            minimum=0,
            maximum=1,
        ),
        "character": FieldDoc("The character whose sheet it was read from."),
        "name": FieldDoc("The attribute or Quality referenced, as @name."),
        "value": FieldDoc("Its value on the sheet at the moment of the request."),
        "set_at": FieldDoc(
            "The stream version of the AttributeSet or QualitySet that set that value.",
            minimum=1,
        ),
    },
    "DieRecord": {
        "index": FieldDoc(
            "The die's draw number, from 0, within its roll (for an opposed check within its "
            "side and round); rerolled and explosion dice continue the count.",
            minimum=0,
        ),
        "term": FieldDoc("The dice term it belongs to, numbered from 0 left to right.", minimum=0),
        "slot": FieldDoc(
            "The base die it is or belongs to, numbered from 0 in draw order over the whole "
            "expression (a check term has one slot per pool die).",
            minimum=0,
        ),
        "sides": FieldDoc("The die's size (R1).", choices=SIZES),
        "face": FieldDoc("What it shows, from 1 to sides.", minimum=1),
        "reason": FieldDoc("Why it was rolled.", choices=_values(Reason)),
        "step": FieldDoc(
            "Its place in an explosion chain, 1 for the first added die; 0 for other dice.",
            minimum=0,
        ),
        "parent": FieldDoc(
            "For an explosion, the index of the die whose chain it extends; for a reroll, the "
            "index of the die it replaces; null for an initial die.",
            minimum=0,
        ),
        "source": FieldDoc(
            "seeded: derived from the epoch seed; manual: typed in from a physical die.",
            choices=_values(Provenance),
        ),
        "epoch": FieldDoc("The seed epoch it was drawn from; null for a manual die.", minimum=1),
        "nonce": FieldDoc(
            "The nonce it was drawn under: its request's, or its reroll command's.", minimum=1
        ),
        "block": FieldDoc(
            "The HMAC block, from 0, of the nonce's stream that gave its word; null for a manual "
            "die.",
            minimum=0,
        ),
        "word": FieldDoc(
            "The word, from 0 to 7, within that block; null for a manual die.",
            minimum=0,
            maximum=WORDS_PER_BLOCK - 1,
        ),
    },
}

EVENTS: dict[str, dict[str, FieldDoc]] = {
    "SessionStarted": {
        "session_id": FieldDoc("The session's id; equal to the stream id of every event."),
        "title": FieldDoc("The session's title."),
        "gm": FieldDoc("Who started it and so became its GM."),
        "manual_dice_allowed": FieldDoc(
            "Whether typed-in physical dice are allowed (version 1 always allowed them)."
        ),
    },
    "PlayerJoined": {
        "name": FieldDoc("The member's name."),
        "role": FieldDoc("player or gm (a co-GM is a gm).", choices=(PLAYER, GM)),
        "client_seed": FieldDoc(
            "The member's own entropy, given after the seed commitment; it enters the dice "
            "message of every roll this member requests. Empty when none."
        ),
        "added_by": FieldDoc("Who added them: themself, or a GM."),
    },
    "SeedCommitted": {
        "epoch": FieldDoc("The epoch's number, 1, 2, 3 ... in order.", minimum=1),
        "commitment": FieldDoc("SHA-256 of the seed's 32 bytes, lowercase hex.", pattern=HEX_64),
        "algorithm": FieldDoc("How dice are drawn from the seed.", choices=(ALGORITHM,)),
    },
    "RollRequested": {
        "roll_id": FieldDoc("The roll's number in the session: 1, 2, 3 ...", minimum=1),
        "nonce": FieldDoc(
            "The session's next roll nonce (gapless over requests and reroll commands).",
            minimum=1,
        ),
        "epoch": FieldDoc("The seed epoch current when it was requested.", minimum=1),
        "roller": FieldDoc("Who asked for it; their client seed is the one in the dice message."),
        "on_behalf_of": FieldDoc("Whom it is rolled for (equal to side.name)."),
        "kind": FieldDoc("What the roll is for.", choices=_values(RollKind)),
        "side": FieldDoc("What the roller's side asked for."),
        "median": FieldDoc("A median check (R8)."),
        "exploding": FieldDoc("false when the request turned explosions off (R13)."),
        "target": FieldDoc("A check's or save's target number; null for other rolls."),
        "dc_modifier": FieldDoc("For a DC, the MOD or Quality; the target is 10 + it (R4)."),
        "dc_label": FieldDoc("For a DC, what the modifier is (e.g. WIS)."),
        "against": FieldDoc("For a save, the origin it is made against (R5)."),
        "opponent": FieldDoc("For an opposed check, what the other side asked for."),
        "action_id": FieldDoc(
            "The action the roll belongs to; its rolls share one reroll allowance "
            "(roll-<roll_id> unless named)."
        ),
        "rerolls_granted": FieldDoc(
            "The allowance this request gave its action; 0 when the action already had one.",
            minimum=0,
        ),
        "reroll_scope": FieldDoc(
            "The action's allowance scope (R11).", choices=_values(RerollScope)
        ),
        "mode": FieldDoc(
            "Who sees the roll until it is revealed: public (everyone), gm (the roller and "
            "the GMs), blind (the GMs only), self (the roller only, until the session ends).",
            choices=_values(RollMode),
        ),
        "blind": FieldDoc("Versions 1 to 3: a GM's roll hidden from players until revealed."),
        "label": FieldDoc("A free-text note on the roll."),
        "client_seed": FieldDoc(
            "The roller's client seed as it stood at the request; the dice message uses it."
        ),
        "salt": FieldDoc(
            "One-off entropy the roller gave with the request (empty when none); the dice "
            "message of the request and of every reroll of the roll uses it."
        ),
        "manual": FieldDoc("The dice were typed in from physical dice."),
        "replaces": FieldDoc("The voided roll this one rolls again, if any.", minimum=1),
        "rules_edition": FieldDoc(
            "The edition of the request rules it was decided under: 1 for every request "
            "before December 2026 (and every request of versions 1 to 4); 2 once each side "
            "of an opposed check is its own: its MODs, circumstances, dice and typed faces.",
            minimum=1,
        ),
        "opponent_rerolls_granted": FieldDoc(
            "For an opposed check, the other side's Effect Reroll allowance, which belongs "
            "to this check alone (its request's side spends its action's, as any roll). "
            "null for any other roll, and for an opposed check of version 1, which took no "
            "rerolls on either side.",
            minimum=0,
        ),
        "references": FieldDoc(
            "Each value the request read from a character's sheet, in the order used "
            "(version 2 had none)."
        ),
        "asked": FieldDoc(
            "The expressions as typed, with their @references, one per side, when a side "
            "referenced a sheet; empty otherwise (and in version 2)."
        ),
    },
    "DiceRolled": {
        "roll_id": ROLL_ID,
        "dice": FieldDoc("The initial dice, in draw order."),
        "side": SIDE,
        "round": ROUND,
    },
    "DieExploded": {
        "roll_id": ROLL_ID,
        "die": FieldDoc("The added die (reason explosion)."),
        "side": SIDE,
        "round": ROUND,
    },
    "DieRerolled": {
        "roll_id": ROLL_ID,
        "die": FieldDoc("The new die (reason reroll)."),
        "replaced": FieldDoc("The index of the discarded die (equal to die.parent).", minimum=0),
        "side": SIDE,
        "round": ROUND,
    },
    "RollAccepted": {
        "roll_id": ROLL_ID,
        "by": ACTOR,
        "rerolls_left": FieldDoc(
            "The allowance left unspent (the action's, or for an opposed check's other side "
            "its own); it stays for the action's other rolls and the check's later rounds. "
            "0 when the GM's end closed the roll.",
            minimum=0,
        ),
        "side": FieldDoc(
            "Which side's turn was accepted: 0 the request's side, 1 an opposed check's "
            "opponent; 0 for any other roll.",
            minimum=0,
            maximum=1,
        ),
        "round": FieldDoc(
            "The round of an opposed check whose turn was accepted; 1 for any other roll.",
            minimum=1,
        ),
    },
    "RollResolved": {
        "roll_id": ROLL_ID,
        "total": FieldDoc("The roll's total (R9, R10, R14)."),
        "detail": FieldDoc("A human-readable breakdown; not part of what verifies."),
    },
    "CheckResolved": {
        "roll_id": ROLL_ID,
        "total": FieldDoc(
            "The check's total; for an opposed check, the first side's total in the last round."
        ),
        "target": FieldDoc("The target met or missed; null for an opposed check."),
        "success": FieldDoc("total >= target; for an opposed check, whether the first side won."),
        "margin": FieldDoc(
            "total - target; for an opposed check, the first side's total minus the second's "
            "in the last round."
        ),
        "detail": FieldDoc("A human-readable breakdown; not part of what verifies."),
        "opponent_total": FieldDoc(
            "For an opposed check, the second side's total in the last round; else null."
        ),
        "winner": FieldDoc("For an opposed check, the winning side's name; else null."),
        "rounds": FieldDoc("How many rounds were rolled (ties + 1); 1 for a check.", minimum=1),
    },
    "OpposedCheckTied": {
        "roll_id": ROLL_ID,
        "round": FieldDoc("The tied round.", minimum=1),
        "total": FieldDoc("The total both sides reached."),
    },
    "RollDisputed": {
        "roll_id": ROLL_ID,
        "by": FieldDoc("The member who disputes it."),
        "reason": FieldDoc("Why, in their words."),
        "at": DECIDED_AT,
    },
    "DisputeResolved": {
        "roll_id": ROLL_ID,
        "by": FieldDoc("The GM who ruled."),
        "outcome": FieldDoc("The ruling.", choices=_values(Ruling)),
        "note": FieldDoc("The GM's note, if any."),
        "at": DECIDED_AT,
    },
    "RollRevealed": {"roll_id": ROLL_ID, "by": FieldDoc("The GM who revealed it.")},
    "SeedRevealed": {
        "epoch": FieldDoc("The epoch whose seed this is.", minimum=1),
        "seed": FieldDoc(
            "The seed: 32 bytes written as 64 lowercase hex digits. The HMAC key is the 32 "
            "bytes, not this text.",
            pattern=HEX_64,
        ),
        "by": FieldDoc("The GM who revealed it (at a dispute or the session's end)."),
    },
    "SessionEnded": {
        "by": FieldDoc("The GM who ended it."),
        "ended_at": FieldDoc(
            "When the end was decided (ISO 8601 UTC, like recorded_at); null if not known.",
            pattern=ISO_UTC,
        ),
        "dispute_window": FieldDoc(
            "For how many seconds after ended_at disputes and rulings are still taken.",
            minimum=0,
        ),
    },
    "SheetRightsSet": {
        "sheets": FieldDoc(
            "Who may change a player character's values: player (its owner and the GMs) or "
            "gm (the GMs only).",
            choices=SHEET_RIGHTS,
        ),
        "by": FieldDoc("The GM who chose it."),
    },
    "CharacterCreated": {
        "character": FieldDoc("The character's name, unique in the session."),
        "owner": FieldDoc("The member whose character it is; null for an NPC of the GMs."),
        "by": ACTOR,
    },
    "AttributeSet": {
        "character": FieldDoc("The character whose sheet changed."),
        "name": FieldDoc(
            "The attribute: 1 to 6 capital letters or digits, from a letter (STR, DEX).",
            pattern=ATTRIBUTE_PATTERN,
        ),
        "value": FieldDoc("Its MOD.", minimum=-MAX_SHEET_VALUE, maximum=MAX_SHEET_VALUE),
        "label": FieldDoc("What it is called at the table (Strength), if given."),
        "by": ACTOR,
    },
    "QualitySet": {
        "character": FieldDoc("The character whose sheet changed."),
        "name": FieldDoc(
            "The Quality (a skill's or an item's): a letter, then up to 39 letters, digits "
            "or underscores (Athletics).",
            pattern=QUALITY_PATTERN,
        ),
        "value": FieldDoc("Its Quality value.", minimum=-MAX_SHEET_VALUE, maximum=MAX_SHEET_VALUE),
        "by": ACTOR,
    },
    "RollSaved": {
        "character": FieldDoc("The character whose sheet keeps the roll."),
        "name": FieldDoc(
            "The roll's name (Longsword): 1 to 40 letters, digits, spaces, _ ' or -, "
            "from a letter or digit.",
            pattern=SAVED_ROLL_PATTERN,
        ),
        "kind": FieldDoc("What the roll is for.", choices=SAVED_KINDS),
        "expression": FieldDoc("The expression it rolls, as typed, with its @references."),
        "by": ACTOR,
    },
    "CharacterRetired": {
        "character": FieldDoc("The character that left play."),
        "by": ACTOR,
    },
}

ENVELOPE: dict[str, FieldDoc] = {
    "position": FieldDoc(
        "The event's place in the exporting store's global log: increasing in file order, "
        "not gapless, not covered by the hash.",
        minimum=1,
    ),
    "event_id": FieldDoc(
        "The event's UUID, lowercase hyphenated.",
        pattern="^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
    ),
    "stream_id": FieldDoc("The session id; the same on every line of a session."),
    "stream_version": FieldDoc("The event's place in its session: 1, 2, 3 ... gapless.", minimum=1),
    "event_type": FieldDoc("Which event this is; it decides the shape of data."),
    "schema_version": FieldDoc(
        "The version of the event type's data shape it was written with.", minimum=1
    ),
    "data": FieldDoc("The event's fields; see $defs for each type and version."),
    "meta": FieldDoc(
        "Who and what wrote the event: actor, correlation_id, client_version. Hashed, but no "
        "rule reads it."
    ),
    "recorded_at": FieldDoc(
        "When the store appended it: ISO 8601 UTC, six fractional digits, Z.",
        pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$",
    ),
    "prev_hash": FieldDoc(
        "The hash of the previous event of the session; 64 zeros for version 1.",
        pattern=HEX_64,
    ),
    "hash": FieldDoc(
        "SHA-256 of 0x00 and the canonical JSON of the event without position and hash.",
        pattern=HEX_64,
    ),
}
