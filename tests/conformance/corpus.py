"""Generate the conformance corpus: honest exports, tampered copies, and their verdicts.

``python -m tests.conformance.corpus`` rewrites conformance/ (the package folder that ships
with diceledger). Everything is fixed (seeds, salts, event ids, the clock), so the files
come out the same on every run; tests/conformance/test_corpus.py checks that they do.

The honest session is the one of docs/verification.md's worked examples, carried on: every
kind of roll, rerolls with explosions, an opposed check that ties, typed-in dice, a blind
roll, disputes (one voided and rolled again), a seed revealed mid-session and the end. A
second table shares the store, so the session's positions have gaps, as in a real export.
Each tampered copy changes one thing, and its expected verdict is stated here by hand.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from diceledger.domain.dice.request import RerollScope, RollKind, Target
from diceledger.domain.dice.sources import DiceSource, SeededSource
from diceledger.domain.hashchain import GENESIS_HASH, record_object_hash
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide import decide
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.state import SessionState, evolve
from diceledger.infra.codec.events import new_event
from diceledger.infra.store.exporting import export_lines
from diceledger.infra.store.memory import InMemoryEventStore

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "conformance"
OLD_RELEASE_LOG = ROOT / "tests" / "fixtures" / "session_v1.jsonl"
SESSION = "crypt-1a2b3c"
OTHER = "side-table-9f9f9f"
SEEDS = (bytes(range(32)), bytes(range(32, 64)), bytes(range(64, 96)))
OTHER_SEED = bytes(32)
ANN_SEED = "ann lucky words"
# Found by searching salts with the documented derivation: with these, roll 2's reroll
# draws a die that explodes twice (d6, d6, d4) and roll 3 ties once after explosions.
REROLL_SALT = "r395"
OPPOSED_SALT = "t66"
Line = dict[str, Any]


def commitment(seed: bytes) -> str:
    """Return SHA-256 of a seed in hex."""
    return hashlib.sha256(seed).hexdigest()


class Table:
    """One session played through ``decide`` into a shared store, with fixed ids and seeds."""

    def __init__(self, store: InMemoryEventStore, session: str, seeds: tuple[bytes, ...]):
        self.store, self.session, self.seeds = store, session, seeds
        self.state = SessionState()
        self.ids = 0

    def run(self, actor: str, command: cmd.Command) -> None:
        def dice(nonce: int, client_seed: str, salt: str) -> DiceSource:
            seed = self.seeds[self.state.epoch.number - 1]
            return SeededSource(seed, self.session, nonce, client_seed, salt)

        events = decide(self.state, command, Context(actor, dice))
        envelopes = []
        for event in events:
            self.ids += 1
            prefix = "3f1c2b9e" if self.session == SESSION else "5e5e5e5e"
            event_id = f"{prefix}-0000-4000-8000-{self.ids:012x}"
            envelopes.append(new_event(event, event_id, {"actor": actor}))
        self.store.append(self.session, envelopes, self.state.version)
        for event in events:
            evolve(self.state, self.state.version + 1, event)

    def seed(self) -> bytes:
        """Return the current epoch's seed."""
        return self.seeds[self.state.epoch.number - 1]

    def reveal(self, actor: str) -> None:
        """Reveal the current seed and commit to the next."""
        number = self.state.epoch.number
        self.run(actor, cmd.RevealSeed(self.seed(), commitment(self.seeds[number])))


def ticking() -> Callable[[], datetime]:
    moment = [datetime(2026, 11, 29, 20, 0, tzinfo=UTC)]

    def now() -> datetime:
        moment[0] += timedelta(seconds=13, microseconds=250)
        return moment[0]

    return now


def play() -> tuple[list[str], int, list[str]]:
    """Play the honest session; return its lines, how many precede its end, the other's."""
    store = InMemoryEventStore(clock=ticking())
    crypt = Table(store, SESSION, SEEDS)
    side = Table(store, OTHER, (OTHER_SEED, OTHER_SEED))
    crypt.run("mira", cmd.StartSession(SESSION, "Crypt of Glass", commitment(SEEDS[0])))
    side.run("otto", cmd.StartSession(OTHER, "Side table", commitment(OTHER_SEED)))
    crypt.run("ann", cmd.JoinSession("ann", ANN_SEED))
    crypt.run("bob", cmd.JoinSession("bob"))
    # The worked examples of docs/verification.md: rolls 1 to 4, nonces 1 to 5.
    crypt.run(
        "ann",
        cmd.RequestRoll(
            RollKind.CHECK, "1d20+1d6", advantage=(Amount(1, "flank"),), target=Target(12)
        ),
    )
    crypt.run("ann", cmd.RequestRoll(RollKind.DAMAGE, "3d6", rerolls=2, salt=REROLL_SALT))
    crypt.run("ann", cmd.Reroll(2, (0, 2)))
    crypt.run(
        "ann",
        cmd.RequestOpposed(CheckSide("ann", "1d6"), CheckSide("bob", "1d20"), salt=OPPOSED_SALT),
    )
    crypt.run("ann", cmd.RequestRoll(RollKind.EFFECT, "(2d6+3)/2", eased=(Amount(1, "bless"),)))
    side.run("otto", cmd.RequestRoll(RollKind.EFFECT, "1d20"))
    # Everything else a log can hold.
    save = cmd.RequestRoll(
        RollKind.SAVE,
        "1d20+1",
        target=Target.dc(3, "WIS"),
        against="green gas",
        median=True,
        disadvantage=(Amount(1, "fog"),),
    )
    crypt.run("bob", save)
    crypt.run(
        "mira",
        cmd.RequestRoll(
            RollKind.CHECK, "1d20", target=Target(12), mode=RollMode.BLIND, on_behalf_of="orc"
        ),
    )
    crypt.run("mira", cmd.RevealRoll(6))
    crypt.run("bob", cmd.RequestRoll(RollKind.DAMAGE, "2d6+1", faces=(3, 6, 6, 2)))
    crypt.run("ann", cmd.OpenDispute(4, "the bless had ended"))
    crypt.run("mira", cmd.ResolveDispute(4, cmd.Ruling.VOIDED, "roll it again without it"))
    crypt.run("ann", cmd.RequestRoll(RollKind.EFFECT, "(2d6+3)/2", replaces=4))
    crypt.run("bob", cmd.OpenDispute(5, "was the fog still there?"))
    crypt.run("mira", cmd.ResolveDispute(5, cmd.Ruling.UPHELD))
    crypt.reveal("mira")
    side.run("otto", cmd.RequestRoll(RollKind.EFFECT, "1d6"))
    crypt.run(
        "ann",
        cmd.RequestRoll(
            RollKind.CHECK,
            "1d20+2[DEX]",
            target=Target(14),
            action_id="volley",
            rerolls=1,
            auto_reroll=True,
            salt="volley",
        ),
    )
    crypt.run("ann", cmd.RequestRoll(RollKind.DAMAGE, "1d8+2", action_id="volley", salt="arrow"))
    crypt.run(
        "bob", cmd.RequestRoll(RollKind.DAMAGE, "2d4", rerolls=1, reroll_scope=RerollScope.DAMAGE)
    )
    crypt.run("bob", cmd.Accept(max(crypt.state.rolls)))
    # bob rolls his own side, a physical die typed in, after ann's request (R6).
    own = cmd.RequestOpposed(
        CheckSide("ann", "1d20+2"), CheckSide("bob", "1d20"), exploding=False, opponent_rolls=True
    )
    crypt.run("ann", own)
    crypt.run("bob", cmd.RollSide(max(crypt.state.rolls), (7,)))
    # Characters' sheets, and rolls that read them (R4, R6).
    crypt.run("ann", cmd.CreateCharacter("Thalia", "ann"))
    crypt.run("ann", cmd.SetAttribute("Thalia", "STR", 3, "Strength"))
    crypt.run("mira", cmd.CreateCharacter("Warden", None))
    crypt.run("mira", cmd.SetQuality("Warden", "Resolve", -1))
    crypt.run(
        "ann", cmd.RequestRoll(RollKind.SAVE, "1d20+@STR", dc_reference="Resolve", against="Warden")
    )
    crypt.run("mira", cmd.SetSheetRights("gm"))
    crypt.run("mira", cmd.JoinSession("bob", as_gm=True))
    crypt.run("bob", cmd.RequestRoll(RollKind.EFFECT, "1d12", on_behalf_of="orc"))
    before_end = crypt.state.version
    crypt.run("mira", cmd.EndSession(crypt.seed()))
    lines = list(export_lines(store.read_stream(SESSION)))
    return lines, before_end, list(export_lines(store.read_stream(OTHER)))


@dataclass
class Case:
    """One file of the corpus and the verdict a verifier must reach on it."""

    file: str
    about: str
    lines: list[str]
    failure: tuple[Line, str] | None = None  # (the line it shows at, words of the reason)
    counts: dict[str, Any] = field(default_factory=dict)


def parsed(lines: list[str]) -> list[Line]:
    return [json.loads(line) for line in lines]


def written(documents: list[Line]) -> list[str]:
    return [json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n" for d in documents]


def rehashed(documents: list[Line]) -> list[Line]:
    """Recompute every prev_hash and hash, as a forger who changed an event would."""
    previous = GENESIS_HASH
    for document in documents:
        document["prev_hash"] = previous
        record = {k: v for k, v in document.items() if k not in ("position", "hash")}
        document["hash"] = previous = record_object_hash(record)
    return documents


def is_type(event_type: str, **data: Any) -> Callable[[Line], bool]:
    def test(line: Line) -> bool:
        return bool(line["event_type"] == event_type) and all(
            line["data"].get(k) == v for k, v in data.items()
        )

    return test


def counts(documents: list[Line]) -> dict[str, Any]:
    """Count what an honest log's verification reports, straight from its lines."""
    revealed = {d["data"]["epoch"] for d in documents if d["event_type"] == "SeedRevealed"}
    dice = [
        die
        for d in documents
        if d["event_type"] in ("DiceRolled", "DieExploded", "DieRerolled")
        for die in d["data"].get("dice", [d["data"].get("die")])
    ]
    seeded = [die for die in dice if die["source"] == "seeded"]
    used = {die["epoch"] for die in seeded}
    return {
        "events": len(documents),
        "rolls": sum(d["event_type"] == "RollRequested" for d in documents),
        "dice_verified": sum(die["epoch"] in revealed for die in seeded),
        "manual_dice": len(dice) - len(seeded),
        "not_yet_verifiable_dice": sum(die["epoch"] not in revealed for die in seeded),
        "unrevealed_epochs": sorted(used - revealed),
    }


def tampered(honest: list[str], other: list[str]) -> list[Case]:
    """Return the tampered copies of the honest log, each with its expected first failure."""
    cases: list[Case] = []

    def case(file: str, about: str, change: Callable[[list[Line]], tuple[Line, str]]) -> None:
        documents = parsed(honest)
        failure = change(documents)
        cases.append(Case(file, about, written(documents), failure))

    def face_edited(documents: list[Line]) -> tuple[Line, str]:
        line = next(d for d in documents if is_type("DieRerolled")(d))
        line["data"]["die"]["face"] = 5
        return line, "hash does not match the event's contents"

    def face_edited_rehashed(documents: list[Line]) -> tuple[Line, str]:
        line, _ = face_edited(documents)
        rehashed(documents)
        return line, "the epoch 1 seed gives 6 (block 0, word 0), the log says 5"

    def dropped(documents: list[Line]) -> tuple[Line, str]:
        index = next(i for i, d in enumerate(documents) if is_type("OpposedCheckTied")(d))
        del documents[index]
        return documents[index], f"follows version {index}"

    def swapped(documents: list[Line]) -> tuple[Line, str]:
        index = next(i for i, d in enumerate(documents) if is_type("RollRevealed")(d))
        documents[index], documents[index + 1] = documents[index + 1], documents[index]
        return documents[index], f"follows version {index}"

    def seed_forged(documents: list[Line]) -> tuple[Line, str]:
        line = next(d for d in documents if is_type("SeedRevealed", epoch=1)(d))
        line["data"]["seed"] = SEEDS[2].hex()
        rehashed(documents)
        return line, "the revealed seed of epoch 1 does not match"

    def nonce_reused(documents: list[Line]) -> tuple[Line, str]:
        line = next(d for d in documents if is_type("RollRequested", roll_id=4)(d))
        line["data"]["nonce"] = 4
        rehashed(documents)
        return line, "roll 4 took nonce 4, the next was 5"

    def client_seed_swapped(documents: list[Line]) -> tuple[Line, str]:
        line = next(d for d in documents if is_type("RollRequested", roll_id=2)(d))
        line["data"]["client_seed"] = ""
        rehashed(documents)
        return line, "used a client seed that is not ann's"

    def total_raised(documents: list[Line]) -> tuple[Line, str]:
        line = next(d for d in documents if is_type("RollResolved", roll_id=2)(d))
        claimed = line["data"]["total"]
        line["data"]["total"] = claimed + 1
        rehashed(documents)
        return line, f"the log says total {claimed + 1}"

    def winner_swapped(documents: list[Line]) -> tuple[Line, str]:
        line = next(d for d in documents if is_type("CheckResolved", roll_id=3)(d))
        line["data"]["winner"] = "ann"  # bob won it
        rehashed(documents)
        return line, "roll 3: the log says"

    def foreign(documents: list[Line]) -> tuple[Line, str]:
        # The side table's last roll, slipped in where its position puts it.
        intruder = next(d for d in reversed(parsed(other)) if is_type("RollRequested")(d))
        index = next(i for i, d in enumerate(documents) if d["position"] > intruder["position"])
        documents.insert(index, intruder)
        return intruder, "an event of another session"

    case("edited-face.jsonl", "A rerolled die's face changed; hashes left alone.", face_edited)
    case(
        "edited-face-rehashed.jsonl",
        "The same face changed, every hash recomputed: the seed gives another face.",
        face_edited_rehashed,
    )
    case("dropped-event.jsonl", "An event removed from the middle.", dropped)
    case("swapped-lines.jsonl", "Two lines in the wrong order.", swapped)
    case("forged-seed.jsonl", "A revealed seed replaced, hashes recomputed.", seed_forged)
    case("reused-nonce.jsonl", "A roll takes a nonce already used, rehashed.", nonce_reused)
    case(
        "swapped-client-seed.jsonl",
        "A roll claims another client seed than its roller's, rehashed.",
        client_seed_swapped,
    )
    case("raised-total.jsonl", "A plain roll's total raised by one, rehashed.", total_raised)
    case(
        "swapped-winner.jsonl",
        "An opposed check's winner changed, rehashed.",
        winner_swapped,
    )
    case("foreign-event.jsonl", "An event of another session inserted.", foreign)
    return cases


def undetectable(honest: list[str], before_end: int) -> list[Case]:
    """Return changes a log alone cannot reveal: they verify (see "What a log proves")."""
    relabelled = parsed(honest)
    request = next(d for d in relabelled if is_type("RollRequested", roll_id=7)(d))
    request["data"]["label"] = "rewritten after the fact"
    rehashed(relabelled)
    truncated = honest[:before_end]
    return [
        Case(
            "truncated.jsonl",
            "The log cut before its end, as an open session's export looks: epoch 2 not yet "
            "revealed. A log alone cannot tell a cut log from an open one (a kept checkpoint can).",
            truncated,
            counts=counts(parsed(truncated)),
        ),
        Case(
            "relabelled-rehashed.jsonl",
            "A label rewritten and every later hash recomputed; a log alone cannot tell.",
            written(relabelled),
            counts=counts(relabelled),
        ),
    ]


def corpus() -> list[Case]:
    """Return every case of the corpus."""
    honest, before_end, other = play()
    old = OLD_RELEASE_LOG.read_text(encoding="utf-8").splitlines(keepends=True)
    return [
        Case(
            "honest-ended.jsonl",
            "A whole session, ended: every seed revealed, every seeded die derivable.",
            honest,
            counts=counts(parsed(honest)),
        ),
        Case(
            "honest-v1.jsonl",
            "A session written by an older release (SessionStarted schema version 1).",
            old,
            counts=counts(parsed(old)),
        ),
        *undetectable(honest, before_end),
        *tampered(honest, other),
    ]


def expected(case: Case) -> dict[str, Any]:
    """Return a case's entry in cases.json."""
    entry: dict[str, Any] = {"file": case.file, "about": case.about}
    if case.failure is None:
        entry |= {"ok": True, "exit_code": 0, "first_failure": None, "counts": case.counts}
        return entry
    line, reason = case.failure
    where = {"position": line["position"], "stream_version": line["stream_version"]}
    entry |= {"ok": False, "exit_code": 1, "first_failure": {**where, "reason": reason}}
    return entry


def files() -> dict[str, str]:
    """Return the corpus as file name -> text."""
    cases = corpus()
    texts = {case.file: "".join(case.lines) for case in cases}
    index = {
        "format": "diceledger/conformance/v1",
        "cases": [expected(case) for case in cases],
    }
    return texts | {"cases.json": json.dumps(index, indent=2, ensure_ascii=False) + "\n"}


def main() -> int:
    """Rewrite the corpus files in conformance/ (the README and __init__.py stay)."""
    for old in FOLDER.glob("*.jsonl"):
        old.unlink()
    for name, text in files().items():
        (FOLDER / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
