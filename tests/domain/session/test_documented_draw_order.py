"""The draw order docs/verification.md states, case by case, predicts the dice a session records.

Each test finds a salt for which the page's derivation (tests/domain/session/documented_dice)
gives the case it is about (a rerolled die that explodes, a tie, ...), plays the commands
through the real aggregate with seeded dice, and compares every recorded die with the
prediction: size, face, block, word, nonce, reason, index, parent and step.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from diceledger.domain.dice.engine import Reason, roll
from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import Modifier, RollKind, Target, build_spec
from diceledger.domain.dice.sources import DiceSource, ManualSource, SeededSource
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide import decide
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.session.state import SessionState, evolve
from tests.domain.session.documented_dice import Drawn, Stream

SEED = bytes(range(32))
SESSION = "crypt-1a2b3c"
ANN_SEED = "ann lucky words"
TRIES = 20_000
# (sides, face, block, word, nonce, reason, index, parent, step), as recorded
Row = tuple[int, int, int | None, int | None, int, str, int, int | None, int]


class SeededTable:
    """A session whose dice come from SEED, played through ``decide``."""

    def __init__(self) -> None:
        self.state = SessionState()
        self.events: list[ev.Event] = []
        commitment = hashlib.sha256(SEED).hexdigest()
        self.run("gm", cmd.StartSession(SESSION, "Crypt", commitment))
        self.run("ann", cmd.JoinSession("ann", ANN_SEED))
        self.run("bob", cmd.JoinSession("bob"))

    def run(self, actor: str, command: cmd.Command) -> list[ev.Event]:
        def dice(nonce: int, client_seed: str, salt: str) -> DiceSource:
            return SeededSource(SEED, SESSION, nonce, client_seed, salt)

        events = decide(self.state, command, Context(actor, dice))
        for event in events:
            evolve(self.state, self.state.version + 1, event)
        self.events += events
        return events

    def rows(self, roll_id: int) -> list[Row]:
        """Return the roll's recorded dice in log order."""
        rows: list[Row] = []
        for event in self.events:
            if isinstance(event, ev.DiceRolled) and event.roll_id == roll_id:
                rows += [_row(die) for die in event.dice]
            elif isinstance(event, ev.DieExploded | ev.DieRerolled) and event.roll_id == roll_id:
                rows.append(_row(event.die))
        return rows


def _row(d: ev.DieRecord) -> Row:
    return (d.sides, d.face, d.block, d.word, d.nonce, d.reason, d.index, d.parent, d.step)


def stream(nonce: int, salt: str, client_seed: str = ANN_SEED) -> Stream:
    return Stream(SEED, SESSION, nonce, client_seed, salt)


def find_salt(wanted: Callable[[str], bool]) -> str:
    salt = next((f"salt-{n}" for n in range(TRIES) if wanted(f"salt-{n}")), None)
    assert salt is not None, f"no salt of {TRIES} gives the case"
    return salt


class Prediction:
    """Rows predicted from the page: each die numbered in the order it is drawn."""

    def __init__(self) -> None:
        self.rows: list[Row] = []

    def die(self, drawn: Drawn, nonce: int, reason: Reason, parent: int | None = None) -> int:
        index = len(self.rows)
        self.rows.append(
            (
                drawn.sides,
                drawn.face,
                drawn.block,
                drawn.word,
                nonce,
                reason.value,
                index,
                parent,
                0,
            )
        )
        return index

    def chain(self, source: Stream, index: int, nonce: int) -> list[Drawn]:
        sides, face = self.rows[index][:2]
        added = source.chain(Drawn(sides, face, 0, 0))
        for step, drawn in enumerate(added, start=1):
            row = (drawn.sides, drawn.face, drawn.block, drawn.word, nonce)
            self.rows.append((*row, Reason.EXPLOSION.value, len(self.rows), index, step))
        return added


def test_a_reroll_command_draws_each_named_die_then_its_chain_under_one_new_nonce() -> None:
    def rerolled_die_explodes(salt: str) -> bool:
        return stream(2, salt).draw(6).face == 6

    salt = find_salt(rerolled_die_explodes)
    table = SeededTable()
    table.run("ann", cmd.RequestRoll(RollKind.DAMAGE, "3d6", rerolls=3, salt=salt))
    table.run("ann", cmd.Reroll(1, (2, 0)))  # named 2 first, then 0

    expected = Prediction()
    first = stream(1, salt)
    initial = [expected.die(first.draw(6), 1, Reason.INITIAL) for _ in range(3)]
    for index in initial:  # every die of a plain roll counts: chains in slot order
        expected.chain(first, index, 1)
    second = stream(2, salt)  # the reroll command: the next nonce, the roll's seed and salt
    for replaced in (2, 0):
        new = expected.die(second.draw(6), 2, Reason.REROLL, parent=replaced)
        expected.chain(second, new, 2)
    rows = table.rows(1)
    assert rows == expected.rows
    assert any(r[5] == "explosion" and r[4] == 2 for r in rows), "the case did not happen"


def test_a_die_that_starts_to_count_after_a_reroll_explodes_under_the_reroll_nonce() -> None:
    def both_twenty_then_lower(salt: str) -> bool:
        first = stream(1, salt)
        faces = (first.draw(20).face, first.draw(20).face)
        return faces == (20, 20) and stream(2, salt).draw(20).face < 20

    salt = find_salt(both_twenty_then_lower)
    table = SeededTable()
    request = cmd.RequestRoll(
        RollKind.CHECK, "1d20", advantage=(Amount(1),), target=Target(10), rerolls=1, salt=salt
    )
    table.run("ann", request)
    table.run("ann", cmd.Reroll(1, (0,)))

    expected = Prediction()
    first = stream(1, salt)
    expected.die(first.draw(20), 1, Reason.INITIAL)
    expected.die(first.draw(20), 1, Reason.INITIAL)
    expected.chain(first, 0, 1)  # equal faces: the lower index counts, and only it explodes
    second = stream(2, salt)
    expected.die(second.draw(20), 2, Reason.REROLL, parent=0)
    expected.chain(second, 1, 2)  # die 1 counts now: its chain comes from the reroll's nonce
    assert table.rows(1) == expected.rows


def opposed_rounds(salt: str) -> list[tuple[list[Drawn], list[Drawn]]]:
    """Predict ann's 1d6 against bob's 1d20: one stream, round by round, side by side."""
    source = stream(1, salt)
    rounds = []
    while True:
        sides = []
        for size in (6, 20):  # bob's side is his own, one d20 (R6)
            die = source.draw(size)
            sides.append([die, *source.chain(die)])
        rounds.append((sides[0], sides[1]))
        if sum(d.face for d in sides[0]) != sum(d.face for d in sides[1]):
            return rounds


def test_an_opposed_check_draws_each_side_with_its_chain_round_after_round() -> None:
    def tie_after_an_explosion(salt: str) -> bool:
        first, _ = opposed_rounds(salt)[0]
        return len(first) > 1 and len(opposed_rounds(salt)) > 1

    salt = find_salt(tie_after_an_explosion)
    table = SeededTable()
    table.run(
        "ann", cmd.RequestOpposed(CheckSide("ann", "1d6"), CheckSide("bob", "1d20"), salt=salt)
    )
    rounds = opposed_rounds(salt)

    recorded = [
        (e.round, e.side, [(d.face, d.block, d.word, d.index, d.nonce) for d in dice])
        for e in table.events
        if isinstance(e, ev.DiceRolled | ev.DieExploded)
        for dice in [e.dice if isinstance(e, ev.DiceRolled) else (e.die,)]
    ]
    predicted = [
        (number, side, [(d.face, d.block, d.word, index, 1)])
        for number, pair in enumerate(rounds, start=1)
        for side, drawn in enumerate(pair)
        for index, d in enumerate(drawn)  # the draw number restarts for each side and round
    ]
    assert recorded == predicted

    last_first, last_second = (sum(d.face for d in side) for side in rounds[-1])
    resolved = table.events[-1]
    assert isinstance(resolved, ev.CheckResolved)
    assert (resolved.total, resolved.opponent_total) == (last_first, last_second)
    assert resolved.margin == last_first - last_second
    assert resolved.success is (last_first > last_second)
    assert resolved.winner == ("ann" if last_first > last_second else "bob")
    assert (resolved.target, resolved.rounds) == (None, len(rounds))
    ties = [e.round for e in table.events if isinstance(e, ev.OpposedCheckTied)]
    assert ties == list(range(1, len(rounds)))


def dice_of(table: SeededTable, roll_id: int) -> list[tuple[int, int, int, int | None, int]]:
    """Return (round, side, face, word, nonce) of a roll's recorded dice, in log order."""
    return [
        (e.round, e.side, d.face, d.word, d.nonce)
        for e in table.events
        if isinstance(e, ev.DiceRolled | ev.DieExploded | ev.DieRerolled) and e.roll_id == roll_id
        for d in (e.dice if isinstance(e, ev.DiceRolled) else (e.die,))
    ]


def test_an_opposed_reroll_takes_its_own_nonce_and_a_tie_it_makes_continues_it() -> None:
    def reroll_ties_then_a_round_is_won(salt: str) -> bool:
        # No 20 for bob: his d20 would explode, and its chain come between the draws.
        first, later = stream(1, salt), stream(2, salt)
        mine, theirs = first.draw(6).face, first.draw(20).face
        if later.draw(6).face != theirs or theirs == mine:
            return False
        again, his = later.draw(6).face, later.draw(20).face
        return again != his != 20

    salt = find_salt(reroll_ties_then_a_round_is_won)
    table = SeededTable()
    sides = (CheckSide("ann", "1d6n"), CheckSide("bob", "1d20"))
    table.run("ann", cmd.RequestOpposed(*sides, rerolls=1, salt=salt))
    table.run("ann", cmd.Reroll(1, (0,)))
    first, later = stream(1, salt), stream(2, salt)
    # The request: ann's die then bob's, under nonce 1. The reroll: ann's new die under
    # nonce 2; it ties, so round 2 goes on in nonce 2's stream: ann's die, then bob's.
    predicted = [(1, 0, 1), (1, 1, 1), (1, 0, 2), (2, 0, 2), (2, 1, 2)]
    draws = [first.draw(6), first.draw(20), later.draw(6), later.draw(6), later.draw(20)]
    expected = [
        (number, side, d.face, d.word, nonce)
        for (number, side, nonce), d in zip(predicted, draws, strict=True)
    ]
    assert dice_of(table, 1) == expected
    assert [d.word for d in draws[2:]] == [0, 1, 2]  # the stream of nonce 2 never restarts
    assert isinstance(table.events[-1], ev.CheckResolved) and table.state.next_nonce == 3


def test_an_accept_whose_round_ties_draws_the_next_round_under_the_next_nonce() -> None:
    def first_round_ties(salt: str) -> bool:
        first, later = stream(1, salt), stream(2, salt)
        tie = first.draw(6).face == first.draw(20).face
        later.draw(6)  # ann's die of round 2; bob's must not explode, or its chain follows
        return tie and later.draw(20).face != 20

    salt = find_salt(first_round_ties)
    table = SeededTable()
    sides = (CheckSide("ann", "1d6n"), CheckSide("bob", "1d20"))
    table.run("ann", cmd.RequestOpposed(*sides, rerolls=1, salt=salt))
    accepted = table.run("ann", cmd.Accept(1))
    later = stream(2, salt)
    round_two = [
        (2, side, d.face, d.word, 2) for side, d in enumerate((later.draw(6), later.draw(20)))
    ]
    assert dice_of(table, 1)[2:] == round_two
    # Ann kept her reroll: round 2 waits for her, and the accept took nonce 2.
    assert not isinstance(accepted[-1], ev.CheckResolved) and table.state.next_nonce == 3


def test_each_reroll_the_default_policy_makes_takes_a_nonce_of_its_own() -> None:
    def two_low_rerolls(salt: str) -> bool:
        first = stream(1, salt)
        faces = [first.draw(6).face, first.draw(6).face]
        if min(faces) > 3 or 6 in faces:
            return False
        faces[faces.index(min(faces))] = stream(2, salt).draw(6).face
        return min(faces) <= 3 and 6 not in faces

    salt = find_salt(two_low_rerolls)
    table = SeededTable()
    table.run(
        "ann", cmd.RequestRoll(RollKind.DAMAGE, "2d6", rerolls=2, auto_reroll=True, salt=salt)
    )
    rerolls = [e.die for e in table.events if isinstance(e, ev.DieRerolled)]
    assert [d.nonce for d in rerolls] == [2, 3]
    assert [(d.face, d.block, d.word) for d in rerolls][0] == (stream(2, salt).draw(6).face, 0, 0)
    assert table.state.next_nonce == 4


def test_blocks_and_words_count_across_the_whole_nonce() -> None:
    table = SeededTable()
    table.run("ann", cmd.RequestRoll(RollKind.EFFECT, "20d4n"))
    source = stream(1, "")
    predicted = [source.draw(4) for _ in range(20)]
    recorded = table.rows(1)
    assert [(r[1], r[2], r[3]) for r in recorded] == [(d.face, d.block, d.word) for d in predicted]
    assert [(r[2], r[3]) for r in recorded][7:10] == [(0, 7), (1, 0), (1, 1)]
    assert recorded[-1][2] == 2


def test_a_skipped_word_keeps_its_place_in_the_block() -> None:
    class Crafted(SeededSource):
        def _words_of(self, block: int) -> tuple[int, ...]:
            # 2**32 - 1 is past the last whole multiple of 6, so a d6 skips it.
            return (2**32 - 1, 7, 2**32 - 1, 2**32 - 1, 13, 1, 2, 3)

    source = Crafted(SEED, SESSION, 1)
    first, second = source.draw(6), source.draw(6)
    assert (first.face, first.block, first.word) == (7 % 6 + 1, 0, 1)
    assert (second.face, second.block, second.word) == (13 % 6 + 1, 0, 4)


def test_the_message_holds_the_rollers_client_seed_not_the_one_rolled_for() -> None:
    table = SeededTable()
    table.run("gm", cmd.RequestRoll(RollKind.EFFECT, "1d20n", on_behalf_of="ann"))
    table.run("ann", cmd.RequestRoll(RollKind.EFFECT, "1d20n"))
    gm_roll, ann_roll = table.rows(1)[0], table.rows(2)[0]
    gm_die, ann_die = stream(1, "", client_seed="").draw(20), stream(2, "").draw(20)
    assert (gm_roll[1], gm_roll[3]) == (gm_die.face, gm_die.word)
    assert (ann_roll[1], ann_roll[3]) == (ann_die.face, ann_die.word)
    request = table.events[-3]
    assert isinstance(request, ev.RollRequested) and request.client_seed == ANN_SEED


def test_terms_count_left_to_right_and_slots_across_the_whole_pool() -> None:
    table = SeededTable()
    table.run(
        "ann",
        cmd.RequestRoll(
            RollKind.CHECK, "1d20n+2d6n+1d4n", advantage=(Amount(1),), target=Target(10), salt="t"
        ),
    )
    assert [(r[6], r[7:]) for r in table.rows(1)] == [(i, (None, 0)) for i in range(5)]
    dice = next(e for e in table.events if isinstance(e, ev.DiceRolled)).dice
    assert [(d.term, d.slot, d.sides) for d in dice] == [
        (0, 0, 20),
        (0, 1, 20),
        (1, 2, 6),
        (1, 3, 6),
        (2, 4, 4),
    ]


def total(text: str, faces: list[int], ease: int) -> int:
    spec = build_spec(parse(text), check=False, eased=(Modifier(ease),))
    return roll(spec, ManualSource(faces)).total


def test_ease_enters_before_a_division_only_when_division_is_the_top_operation() -> None:
    assert total("(2d6+3)/2", [2, 3], 2) == (2 + 3 + 3 + 2) // 2
    assert total("((2d6+3)/2)", [2, 3], 2) == (2 + 3 + 3 + 2) // 2  # outer parentheses: same
    assert total("2*(1d6+1)/2", [4], 1) == (2 * (4 + 1) + 1) // 2  # (2*(x+1))/2
    assert total("1d6/2+1", [5], 1) == 5 // 2 + 1 + 1  # the top operation is +
    assert total("(1d6+4)/2/2", [5], 3) == ((5 + 4 + 3) // 2) // 2  # into the leftmost
    assert total("-1d6/2", [3], 2) == (-3 + 2) // 2  # unary minus binds tighter than /
