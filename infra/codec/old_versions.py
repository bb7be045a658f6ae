"""The event shapes of older schema versions, frozen, and the upcasters that read them.

A log written by an older release always replays: ``codec.events`` runs a recorded
event's data through the upcasters from its version up to the current one. Beside each
upcaster a frozen dataclass describes the data it reads, so the published schema covers
old versions too (``infra.app.event_schema``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from diceledger.domain.session import editions
from diceledger.domain.session import events as ev

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class SessionStartedV1:
    """A session was opened (version 1: no way to forbid typed-in dice)."""

    session_id: str
    title: str
    gm: str


@dataclass(frozen=True, slots=True)
class SessionEndedV1:
    """The session was closed (version 1: disputes closed with it)."""

    by: str


@dataclass(frozen=True, slots=True)
class RollDisputedV1:
    """A member disputed a roll (version 1: no time of decision)."""

    roll_id: int
    by: str
    reason: str


@dataclass(frozen=True, slots=True)
class DisputeResolvedV1:
    """A GM ruled on a dispute (version 1: no time of decision)."""

    roll_id: int
    by: str
    outcome: str
    note: str | None


@dataclass(frozen=True, slots=True)
class RollRequestedV1:
    """A roll was asked for (version 1: an opposed check's other side had no rerolls)."""

    roll_id: int
    nonce: int
    epoch: int
    roller: str
    on_behalf_of: str
    kind: str
    side: ev.CheckSide
    median: bool
    exploding: bool
    target: int | None
    dc_modifier: int | None
    dc_label: str | None
    against: str | None
    opponent: ev.CheckSide | None
    action_id: str
    rerolls_granted: int
    reroll_scope: str
    blind: bool
    label: str | None
    client_seed: str
    salt: str
    manual: bool
    replaces: int | None


@dataclass(frozen=True, slots=True)
class RollRequestedV2:
    """A roll was asked for (version 2: every MOD was typed in, none read from a sheet)."""

    roll_id: int
    nonce: int
    epoch: int
    roller: str
    on_behalf_of: str
    kind: str
    side: ev.CheckSide
    median: bool
    exploding: bool
    target: int | None
    dc_modifier: int | None
    dc_label: str | None
    against: str | None
    opponent: ev.CheckSide | None
    action_id: str
    rerolls_granted: int
    reroll_scope: str
    blind: bool
    label: str | None
    client_seed: str
    salt: str
    manual: bool
    replaces: int | None
    opponent_rerolls_granted: int | None = None


@dataclass(frozen=True, slots=True)
class RollRequestedV3:
    """A roll was asked for (version 3: only a GM's blind roll was hidden, no modes)."""

    roll_id: int
    nonce: int
    epoch: int
    roller: str
    on_behalf_of: str
    kind: str
    side: ev.CheckSide
    median: bool
    exploding: bool
    target: int | None
    dc_modifier: int | None
    dc_label: str | None
    against: str | None
    opponent: ev.CheckSide | None
    action_id: str
    rerolls_granted: int
    reroll_scope: str
    blind: bool
    label: str | None
    client_seed: str
    salt: str
    manual: bool
    replaces: int | None
    opponent_rerolls_granted: int | None = None
    references: tuple[ev.SheetValue, ...] = ()
    asked: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RollRequestedV4:
    """A roll was asked for (version 4: no edition of the rules, all of the first)."""

    roll_id: int
    nonce: int
    epoch: int
    roller: str
    on_behalf_of: str
    kind: str
    side: ev.CheckSide
    median: bool
    exploding: bool
    target: int | None
    dc_modifier: int | None
    dc_label: str | None
    against: str | None
    opponent: ev.CheckSide | None
    action_id: str
    rerolls_granted: int
    reroll_scope: str
    mode: str
    label: str | None
    client_seed: str
    salt: str
    manual: bool
    replaces: int | None
    opponent_rerolls_granted: int | None = None
    references: tuple[ev.SheetValue, ...] = ()
    asked: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DieRerolledV1:
    """A die was rerolled (version 1: single-sided rolls only, so no side or round)."""

    roll_id: int
    die: ev.DieRecord
    replaced: int


@dataclass(frozen=True, slots=True)
class RollAcceptedV1:
    """A waiting roll was accepted (version 1: single-sided rolls only)."""

    roll_id: int
    by: str
    rerolls_left: int


def _session_started_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 had no way to forbid typed-in dice: every session allowed them.
    return {**data, "manual_dice_allowed": True}


def _session_ended_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 closed disputes with the session: no window after the end.
    return {**data, "ended_at": None, "dispute_window": 0}


def _decided_at_unknown(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 disputes and rulings did not record when they were decided; none could be
    # made after the end then, so no window ever needs their time.
    return {**data, "at": None}


def _no_opposed_rerolls(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 opposed checks took no rerolls on either side, not even from their action;
    # null says so (and is the value of every other roll).
    return {**data, "opponent_rerolls_granted": None}


def _no_sheet_values(data: dict[str, Any]) -> dict[str, Any]:
    # Version 2 requests had no characters to read from: every MOD was typed in.
    return {**data, "references": [], "asked": []}


def _blind_as_mode(data: dict[str, Any]) -> dict[str, Any]:
    # Version 3 knew one hidden roll, the GM's blind one; every other roll was public.
    rest = {key: value for key, value in data.items() if key != "blind"}
    return {**rest, "mode": "blind" if data.get("blind") else "public"}


def _first_edition(data: dict[str, Any]) -> dict[str, Any]:
    # Version 4 requests were all decided by the first edition of the request rules.
    return {**data, "rules_edition": editions.FIRST}


def _first_side_first_round(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 rerolls and accepts were of single-sided rolls: side 0, round 1.
    return {**data, "side": 0, "round": 1}


UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("SessionStarted", 1): _session_started_v1_to_v2,
    ("SessionEnded", 1): _session_ended_v1_to_v2,
    ("RollDisputed", 1): _decided_at_unknown,
    ("DisputeResolved", 1): _decided_at_unknown,
    ("RollRequested", 1): _no_opposed_rerolls,
    ("RollRequested", 2): _no_sheet_values,
    ("RollRequested", 3): _blind_as_mode,
    ("RollRequested", 4): _first_edition,
    ("DieRerolled", 1): _first_side_first_round,
    ("RollAccepted", 1): _first_side_first_round,
}
# The data each upcaster reads, for the published schema (domain.event_schema): an
# older version is described here, beside the code that still reads it.
OLDER_SHAPES: dict[tuple[str, int], type] = {
    ("SessionStarted", 1): SessionStartedV1,
    ("SessionEnded", 1): SessionEndedV1,
    ("RollDisputed", 1): RollDisputedV1,
    ("DisputeResolved", 1): DisputeResolvedV1,
    ("RollRequested", 1): RollRequestedV1,
    ("RollRequested", 2): RollRequestedV2,
    ("RollRequested", 3): RollRequestedV3,
    ("RollRequested", 4): RollRequestedV4,
    ("DieRerolled", 1): DieRerolledV1,
    ("RollAccepted", 1): RollAcceptedV1,
}
