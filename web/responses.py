"""What each API route answers, as typed models: the success schemas of /openapi.json.

A route builds its answer from the application layer's result into one of these (the
small answers), or passes on a view the domain already shaped, which the model here
describes (a roll and a session: web/roll_responses.py). Every field the server sends is
declared; tests/api/test_openapi_answers.py holds real answers to these schemas.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue
from pydantic.config import JsonDict

from diceledger.domain.dice.request import RollKind
from diceledger.infra.app.roll_form import MAX_TEXT
from diceledger.web.roll_responses import CHECKPOINT, Shape

HEX64 = "^[0-9a-f]{64}$"
TIMESTAMP = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$"
Checkpoint = str | None
JsonObject = dict[str, JsonValue]
# Values the application layer hands over as plain strings, listed for a client.
ROLES: JsonDict = {"enum": ["gm", "player"]}
OUTCOMES: JsonDict = {"enum": ["open", "upheld", "voided"]}


class Health(Shape):
    """GET /healthz."""

    status: Literal["ok"]


class OpenedSession(Shape):
    """A new session; the GM's token is shown this once."""

    session_id: str
    title: str = Field(max_length=MAX_TEXT)
    gm: str = Field(max_length=MAX_TEXT)
    gm_token: str = Field(description="The GM's bearer token (shown once)")
    commitment: str = Field(pattern=HEX64, description="Of the first seed")
    checkpoint: Checkpoint = Field(description=CHECKPOINT)


class Joined(Shape):
    """A player who joined; their token is shown this once."""

    session_id: str = Field(description="The session joined")
    player_token: str = Field(description="The player's bearer token (shown once)")
    name: str = Field(max_length=MAX_TEXT)
    role: str = Field(json_schema_extra=ROLES)
    checkpoint: Checkpoint = Field(description=CHECKPOINT)


class Invite(Shape):
    """A single-use, expiring invite; the code is shown this once."""

    session_id: str
    invite_code: str
    join_path: str = Field(description="/join/{code}: the page that joins with it")
    expires_at: str = Field(pattern=TIMESTAMP)


class SignInCode(Shape):
    """A one-time link that signs a member in on another browser (shown once)."""

    session_id: str
    name: str = Field(max_length=MAX_TEXT, description="The member it signs in")
    sign_in_path: str
    expires_at: str = Field(pattern=TIMESTAMP)


class SeedRevealed(Shape):
    """The revealed seed, and the commitment to the next."""

    session_id: str
    epoch: int = Field(ge=1)
    seed: str = Field(pattern=HEX64)
    commitment: str = Field(pattern=HEX64)
    next_epoch: int = Field(ge=2)
    next_commitment: str = Field(pattern=HEX64)
    checkpoint: Checkpoint = Field(description=CHECKPOINT)


class SessionEnded(Shape):
    """An ended session: its last seed, revealed."""

    session_id: str
    ended: Literal[True]
    epoch: int = Field(ge=1)
    seed: str = Field(pattern=HEX64)
    disputes_until: str | None = Field(
        pattern=TIMESTAMP, description="When disputes and the GM's rulings on them close"
    )
    checkpoint: Checkpoint = Field(description=CHECKPOINT)


class MemberTokens(Shape):
    """A member, with how many live tokens they hold."""

    name: str = Field(max_length=MAX_TEXT)
    role: str = Field(json_schema_extra=ROLES)
    live_tokens: int = Field(ge=0)


class Members(Shape):
    """The members of a session (GM)."""

    session_id: str
    members: list[MemberTokens]


class Revoked(Shape):
    """A member whose tokens were all revoked."""

    session_id: str
    name: str = Field(max_length=MAX_TEXT)
    revoked_tokens: int = Field(ge=0)


class CoGm(Shape):
    """A player made a co-GM."""

    session_id: str
    name: str = Field(max_length=MAX_TEXT)
    role: Literal["gm"]
    checkpoint: Checkpoint = Field(description=CHECKPOINT)


class Device(Shape):
    """One device a member is signed in on (a live token)."""

    device_id: str
    signed_in_at: str = Field(pattern=TIMESTAMP)
    this_device: bool


class Devices(Shape):
    """The caller's devices, oldest first."""

    session_id: str
    name: str = Field(max_length=MAX_TEXT)
    most_devices: int = Field(ge=1)
    devices: list[Device]


class SignedOut(Shape):
    """A device signed out."""

    session_id: str
    device_id: str
    signed_out: Literal[True]


class Dispute(Shape):
    """A dispute opened, or ruled on."""

    session_id: str
    roll_id: int = Field(ge=1)
    by: str
    outcome: str = Field(json_schema_extra=OUTCOMES)
    note: str | None = Field(max_length=MAX_TEXT)
    checkpoint: Checkpoint = Field(description=CHECKPOINT)


class ReplayLine(Shape):
    """One event of the timeline, as the viewer may see it."""

    position: int = Field(ge=1)
    version: int = Field(ge=1)
    recorded_at: str = Field(pattern=TIMESTAMP)
    actor: str
    event: str = Field(description="The event type")
    roll_id: int | None
    hidden: bool
    text: str = Field(description="The event in one line")
    detail: JsonObject = Field(description="The event's fields the viewer may see")


class Replay(Shape):
    """A session as it happened, or as it stood at a moment."""

    session_id: str
    lines: list[ReplayLine]
    as_of: JsonObject | None = Field(
        description="Members, open rolls and totals at the moment; null for a full replay"
    )


Figures = dict[str, int | float | None]  # a group's figures by name (docs/statistics.md)


class DieStatistics(Shape):
    """One die size's figures, and how often each face came up."""

    rolls: int = Field(ge=0)
    mean: float | None
    fair_mean: float
    chi_square: float | None
    df: int = Field(ge=0)
    p_value: float | None = Field(ge=0, le=1)
    too_few: int = Field(ge=0, le=1, description="1 while too few rolls to judge fairness")
    rolls_needed: int = Field(ge=0)
    faces: dict[str, int] = Field(description="Count by face, 1 to the die's sides")


class ReportFigures(Shape):
    """A report's groups of figures, then each die size (docs/statistics.md)."""

    rolls: Figures
    outcomes: Figures
    luck: Figures
    explosions: Figures
    rerolls: Figures
    disputes: Figures
    dice_source: Figures
    excluded: Figures
    dice: dict[str, DieStatistics] = Field(description="By die size: d6, d20, ...")


class PlayerStatistics(ReportFigures):
    """One player's report in one session, or over all of them (``ALL``)."""

    session_id: str
    player: str


class CharacterStatistics(ReportFigures):
    """One character's report in one session of a campaign, or over all of them (``ALL``):
    the rolls that count for that character (docs/statistics.md)."""

    session_id: str
    character: str = Field(max_length=MAX_TEXT)


class Statistics(Shape):
    """Per-player statistics in the scope the viewer may see (docs/statistics.md)."""

    viewer: str
    reports: list[PlayerStatistics]


class SheetEntry(Shape):
    """One attribute MOD or Quality value, and the version of the event that set it."""

    name: str = Field(max_length=MAX_TEXT)
    value: int
    label: str | None
    set_at: int = Field(ge=1, description="The stream version of the event that set it")


class SavedRoll(Shape):
    """A named roll a character keeps: its kind, its expression as typed (``@STR`` kept)."""

    name: str = Field(max_length=MAX_TEXT)
    kind: RollKind
    expression: str
    set_at: int = Field(ge=1)


class CharacterSheet(Shape):
    """A character's sheet; ``owner`` null (and ``npc`` true) for an NPC of the GMs."""

    name: str = Field(max_length=MAX_TEXT)
    owner: str | None
    npc: bool
    retired: bool
    attributes: list[SheetEntry]
    qualities: list[SheetEntry]
    saved_rolls: list[SavedRoll]


SHEETS: JsonDict = {"enum": ["player", "gm"]}


class Characters(Shape):
    """Every character of the session, and who keeps player characters' sheets."""

    session_id: str
    sheets: str = Field(json_schema_extra=SHEETS)
    characters: list[CharacterSheet]


class SheetChanged(Shape):
    """What a sheet command left: the character it changed (none for the sheets setting)."""

    session_id: str
    sheets: str = Field(json_schema_extra=SHEETS)
    character: CharacterSheet | None = None
    checkpoint: Checkpoint = Field(description=CHECKPOINT)


class CampaignSession(Shape):
    """One session of a campaign, and the caller's role in it (null: not a member)."""

    session_id: str
    title: str = Field(max_length=MAX_TEXT)
    role: Literal["gm", "player"] | None


class Campaign(Shape):
    """A campaign: its sessions in the order they were added (docs/campaigns.md)."""

    campaign_id: str
    title: str = Field(max_length=MAX_TEXT)
    started_by: str = Field(max_length=MAX_TEXT)
    sessions: list[CampaignSession]


class CampaignStatistics(Campaign):
    """The campaign, then per-player statistics: one report per session the caller is a
    member of, in the campaign's order, then each player's over all of them (``ALL``);
    then, in the same order, each character's."""

    viewer: str
    reports: list[PlayerStatistics]
    characters: list[CharacterStatistics]


class OpenedCampaignSession(OpenedSession):
    """A new session of a campaign; the GM's token is shown this once."""

    campaign_id: str


class Failure(Shape):
    """Where a verification failed and why."""

    position: int | None
    stream_version: int | None
    reason: str


class Finding(Shape):
    """What one checkpoint source says of the log."""

    source: str
    ok: bool
    detail: str


class CheckpointFindings(Shape):
    """The signed checkpoints a verify checked the log against."""

    checked: str
    ok: bool
    kept: int = Field(ge=0)
    findings: list[Finding]


class Verification(Shape):
    """A session verified: chain, nonces, commitments, every die and outcome."""

    session_id: str
    ok: bool
    events: int = Field(ge=0)
    rolls: int = Field(ge=0)
    dice_verified: int = Field(ge=0)
    manual_dice: int = Field(ge=0)
    not_yet_verifiable_dice: int = Field(ge=0)
    unrevealed_epochs: list[int]
    sealed_rolls: list[int]
    sealed_events: int = Field(ge=0)
    anchor: str
    first_failure: Failure | None
    failures: list[Failure]
    verdict: Literal["proven", "failed", "unanchored"]
    checkpoints: CheckpointFindings


class Review(Shape):
    """The GM's review of a roll: every die, its provenance and the proofs."""

    session_id: str
    roll_id: int = Field(ge=1)
    request: str
    status: str
    voided: bool
    disputes: list[JsonObject]
    ruling: JsonObject | None
    dice: list[JsonObject]
    steps: list[str]
    events: list[JsonObject]
    roll_verified: bool
    roll_problems: list[JsonValue]
    session_verification: JsonObject
    other_disputes_of_player: list[JsonValue]


class Key(Shape):
    """A verifier key of the server; a retired one names its successor."""

    verifier_key: str
    name: str
    key_id: str = Field(pattern="^[0-9a-f]{8}$")
    current: bool
    successor: str | None = None
    rotation: str | None = Field(default=None, description="The retired key's signed word")


class Keys(Shape):
    """The server's verifier keys."""

    keys: list[Key]


class SignedCheckpoint(Shape):
    """A session's latest signed checkpoint."""

    session_id: str
    size: int = Field(ge=0)
    root: str = Field(pattern=HEX64)
    checkpoint: str
    verifier_key: str


class Inclusion(Shape):
    """The proof that one event is in the signed tree."""

    session_id: str
    position: int = Field(ge=1)
    stream_version: int = Field(ge=1)
    leaf_index: int = Field(ge=0)
    tree_size: int = Field(ge=1)
    leaf_hash: str = Field(pattern=HEX64)
    proof: list[str]
    checkpoint: Checkpoint = Field(description="The checkpoint of the tree the proof is in")


class Consistency(Shape):
    """The proof that a smaller tree is a prefix of a larger one."""

    session_id: str
    from_: int = Field(alias="from", ge=0)
    to: int = Field(ge=0)
    proof: list[str]
    checkpoint: Checkpoint = Field(description="The checkpoint of the tree the proof is in")


class ReceiptEvent(Shape):
    """One event of a receipt with its inclusion proof."""

    index: int = Field(ge=0)
    record: JsonObject
    proof: list[str]


class Receipt(Shape):
    """A roll's receipt, checkable offline (docs/verification.md)."""

    format: str
    checkpoint: str
    verifier_key: str
    events: list[ReceiptEvent]


class Exact(Shape):
    """A probability or a mean: exact, and as a float."""

    fraction: str = Field(pattern="^-?[0-9]+(/[0-9]+)?$", description="2/3, or 0 or 1")
    float_: float = Field(alias="float")


class Share(Exact):
    """The chance of one total."""

    total: int


class Odds(Shape):
    """The exact odds of a roll or a check (no ``vs``), or of an opposed check (``vs``)."""

    roll: str
    reroll_policy: str | None
    mean: Exact
    target: int | None = None
    success: Exact | None = None
    best_success: Exact | None = Field(
        default=None,
        description="the chance of success when every reroll is spent as well as possible",
    )
    best_success_refused: str | None = Field(
        default=None, description="why best_success could not be worked out exactly"
    )
    truncated_mass: Exact | None = None
    distribution: list[Share] | None = None
    versus: str | None = None
    win: Exact | None = None
    lose: Exact | None = None
    tie: Exact | None = None
    versus_mean: Exact | None = None


class DiscordReply(Shape):
    """An interaction response, as Discord's API defines it (docs/discord.md)."""

    type: int = Field(description="Discord's interaction response type (1: pong)")
    data: JsonObject | None = None
