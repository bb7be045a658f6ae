"""``reroll``, ``accept``, ``opposed``, blind rolls with ``reveal``, and ``seed reveal``."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

from diceledger.domain.dice.sources import SeededSource
from tests.cli.conftest import Ledger


def test_r11_roll_with_rerolls_waits_and_says_how_to_go_on(ledger: Ledger, table: str) -> None:
    out = ledger.ok(
        "bob", "check", table, "1d20+1", "--target", "12", "--reroll", "1", "--faces", "3"
    )
    # No success or failure yet: a reroll may still change it.
    assert out.splitlines()[0] == "#1 bob check: 1d20 (3) + 1 = 4 vs 12"
    assert out.splitlines()[1] == (
        f"  awaiting rerolls: 1 left (effect); `diceledger reroll {table} 1 --die N` "
        f"or `diceledger accept {table} 1`"
    )
    roll = ledger.data("bob", "session", "show", table)["rolls"][0]
    assert (roll["status"], roll["rerolls_left"], roll["total"]) == ("awaiting_rerolls", 1, 4)
    assert roll["success"] is None and roll["margin"] is None
    assert ledger.event_types(table)[-1] == "DiceRolled"


def test_r11_reroll_replaces_the_die_and_resolves_when_spent(ledger: Ledger, table: str) -> None:
    ledger.ok("bob", "check", table, "1d20+1", "--target", "12", "--reroll", "1", "--faces", "3")
    roll = ledger.data("bob", "reroll", table, "1", "--die", "0", "--faces", "14")
    assert (roll["status"], roll["total"], roll["success"], roll["margin"]) == (
        "resolved",
        15,
        True,
        3,
    )
    dice = [(d["face"], d["counted"], d["discarded"], d["reason"]) for d in roll["dice"]]
    assert dice == [(3, False, True, "initial"), (14, True, False, "reroll")]
    assert ledger.event_types(table)[-2:] == ["DieRerolled", "CheckResolved"]


def test_r11_a_rerolled_die_may_explode_and_its_old_chain_goes(ledger: Ledger, table: str) -> None:
    ledger.ok("ann", "roll", table, "1d6", "--reroll", "1", "--faces", "6,1")
    roll = ledger.data("ann", "reroll", table, "1", "--die", "0", "--faces", "6,6,3")
    assert roll["total"] == 15
    live = [(d["sides"], d["face"]) for d in roll["dice"] if not d["discarded"]]
    assert live == [(6, 6), (6, 6), (4, 3)]


def test_r11_spending_more_rerolls_than_remain_is_refused(ledger: Ledger, table: str) -> None:
    ledger.ok("bob", "roll", table, "2d6", "--reroll", "1", "--faces", "1,2")
    message = ledger.refused("bob", "reroll", table, "1", "--die", "0", "--die", "1")
    assert message == "2 rerolls asked, 1 left"


def test_r11_a_resolved_roll_cannot_be_rerolled(ledger: Ledger, table: str) -> None:
    ledger.ok("bob", "roll", table, "1d6", "--reroll", "1", "--faces", "1")
    ledger.ok("bob", "reroll", table, "1", "--die", "0", "--faces", "2")
    assert ledger.refused("bob", "reroll", table, "1", "--die", "0") == "roll 1 is already resolved"
    assert ledger.refused("bob", "accept", table, "1") == "roll 1 is already resolved"


def test_r11_only_the_roller_may_reroll_or_accept(ledger: Ledger, table: str) -> None:
    ledger.ok("bob", "roll", table, "1d6", "--reroll", "1", "--faces", "1")
    expected = "only bob, who rolled it, may reroll roll 1"
    assert ledger.refused("ann", "reroll", table, "1", "--die", "0") == expected
    assert (
        ledger.refused("gm", "accept", table, "1") == "only bob, who rolled it, may accept roll 1"
    )


def test_r11_explosion_dice_and_missing_dice_cannot_be_rerolled(ledger: Ledger, table: str) -> None:
    ledger.ok("ann", "roll", table, "1d6", "--reroll", "1", "--faces", "6,2")
    assert "explosion of die 0" in ledger.refused("ann", "reroll", table, "1", "--die", "1")
    assert ledger.refused("ann", "reroll", table, "1", "--die", "5") == "the roll has no die 5"
    assert (
        ledger.refused("ann", "reroll", table, "9", "--die", "0")
        == f"no roll 9 in session '{table}'"
    )


def test_r11_reroll_faces_must_fit(ledger: Ledger, table: str) -> None:
    ledger.ok("ann", "roll", table, "1d6", "--reroll", "1", "--faces", "2")
    assert "too many faces" in ledger.refused(
        "ann", "reroll", table, "1", "--die", "0", "--faces", "3,4"
    )
    assert "not on a d6" in ledger.refused(
        "ann", "reroll", table, "1", "--die", "0", "--faces", "7"
    )


def test_reroll_needs_a_die(ledger: Ledger, table: str) -> None:
    ledger.ok("ann", "roll", table, "1d6", "--reroll", "1", "--faces", "2")
    assert "--die" in ledger.misused("ann", "reroll", table, "1")


def test_r11_accept_keeps_the_roll_as_it_stands(ledger: Ledger, table: str) -> None:
    ledger.ok("ann", "check", table, "1d20", "--target", "10", "--reroll", "2", "--faces", "9")
    roll = ledger.data("ann", "accept", table, "1")
    assert (roll["status"], roll["total"], roll["success"], roll["margin"]) == (
        "resolved",
        9,
        False,
        -1,
    )
    assert ledger.event_types(table)[-2:] == ["RollAccepted", "CheckResolved"]


def test_r11_damage_rerolls_wait_on_the_damage_roll_not_the_check(
    ledger: Ledger, table: str
) -> None:
    check = ledger.data(
        "ann", "check", table, "1d20", "--target", "10", "--action", "swing", "--reroll", "1",
        "--reroll-scope", "damage", "--faces", "2",
    )  # fmt: skip
    assert check["status"] == "resolved"
    damage = ledger.data(
        "ann", "roll", table, "1d8", "--kind", "damage", "--action", "swing", "--faces", "1"
    )
    assert (damage["status"], damage["rerolls_left"]) == ("awaiting_rerolls", 1)
    message = ledger.refused("ann", "reroll", table, "1", "--die", "0")
    assert message == "roll 1 is already resolved"
    assert ledger.data("ann", "reroll", table, "2", "--die", "0", "--faces", "7")["total"] == 7


def test_r11_an_action_allowance_is_shared_and_spending_it_closes_the_rest(
    ledger: Ledger, table: str
) -> None:
    ledger.ok(
        "ann",
        "check",
        table,
        "1d20",
        "--target",
        "10",
        "--action",
        "a",
        "--reroll",
        "1",
        "--faces",
        "4",
    )
    ledger.ok("ann", "roll", table, "1d8", "--kind", "damage", "--action", "a", "--faces", "2")
    ledger.ok("ann", "reroll", table, "2", "--die", "0", "--faces", "5")
    rolls = ledger.data("ann", "session", "show", table)["rolls"]
    assert [(r["status"], r["total"]) for r in rolls] == [("resolved", 4), ("resolved", 5)]


def test_r11_an_action_has_one_owner_and_one_allowance(ledger: Ledger, table: str) -> None:
    ledger.ok("ann", "roll", table, "1d6", "--action", "a", "--reroll", "1", "--faces", "2")
    assert "already has its allowance" in ledger.refused(
        "ann", "roll", table, "1d6", "--action", "a", "--reroll", "1"
    )
    assert (
        ledger.refused("bob", "roll", table, "1d6", "--action", "a") == "action 'a' belongs to ann"
    )


def test_r11_auto_reroll_lets_the_default_policy_decide(ledger: Ledger, table: str) -> None:
    roll = ledger.data(
        "ann", "check", table, "1d20", "--target", "10", "--reroll", "1", "--auto-reroll",
        "--faces", "2,15",
    )  # fmt: skip
    assert (roll["status"], roll["total"]) == ("resolved", 15)
    kept = ledger.data(
        "ann", "check", table, "1d20", "--target", "10", "--reroll", "1", "--auto-reroll",
        "--faces", "12",
    )  # fmt: skip
    assert (kept["status"], kept["total"]) == ("resolved", 12)


def test_r6_opposed_check_rolls_both_sides_and_names_the_winner(ledger: Ledger, table: str) -> None:
    roll = ledger.data(
        "gm", "opposed", table, "1d20+2", "--vs", "ogre", "1d20+1", "--faces", "12,5"
    )
    keys = ("name", "expression", "total", "rerolls_spent", "rerolls_left")
    named = [{key: c[key] for key in keys} for c in roll["contestants"]]
    no_rerolls = {"rerolls_spent": 0, "rerolls_left": 0}
    assert named == [
        {"name": "gm", "expression": "1d20+2", "total": 14, **no_rerolls},
        {"name": "ogre", "expression": "1d20+1", "total": 6, **no_rerolls},
    ]
    assert roll["waiting_for"] is None
    assert (roll["winner"], roll["success"], roll["margin"], roll["rounds"]) == ("gm", True, 8, 1)
    assert [(d["side"], d["round"], d["face"]) for d in roll["dice"]] == [(0, 1, 12), (1, 1, 5)]
    out = ledger.ok("gm", "opposed", table, "1d20+2", "--vs", "ogre", "1d20+1", "--faces", "3,5")
    assert out == (
        "#2 gm opposed vs ogre:\n"
        "  round 1: gm 1d20 (3) + 2 = 5, ogre 1d20 (5) + 1 = 6\n"
        "  ogre wins\n"
    )


def test_r6_a_tie_rolls_a_new_round_and_keeps_both(ledger: Ledger, table: str) -> None:
    roll = ledger.data(
        "gm", "opposed", table, "1d20+2", "--vs", "ogre", "1d20+1", "--faces", "10,11,15,3"
    )
    assert (roll["rounds"], roll["winner"]) == (2, "gm")
    assert [(d["side"], d["round"], d["face"]) for d in roll["dice"]] == [
        (0, 1, 10),
        (1, 1, 11),
        (0, 2, 15),
        (1, 2, 3),
    ]
    assert "OpposedCheckTied" in ledger.event_types(table)
    shown = ledger.ok("bob", "session", "show", table)
    assert "gm wins after 2 rounds" in shown


def test_r6_opposed_faces_take_each_sides_explosions_in_turn(ledger: Ledger, table: str) -> None:
    roll = ledger.data("gm", "opposed", table, "1d20", "--vs", "ogre", "1d20", "--faces", "20,3,5")
    assert [(d["side"], d["sides"], d["face"], d["reason"]) for d in roll["dice"]] == [
        (0, 20, 20, "initial"),
        (0, 20, 3, "explosion"),
        (1, 20, 5, "initial"),
    ]
    assert [c["total"] for c in roll["contestants"]] == [23, 5]


def test_r7_r9_each_side_has_its_own_advantage_and_ease(ledger: Ledger, table: str) -> None:
    roll = ledger.data(
        "gm", "opposed", table, "1d20", "--vs", "ogre", "1d20", "--adv", "1", "--vs-dis", "1",
        "--vs-eased", "3", "--faces", "4,9,17,8",
    )  # fmt: skip
    assert [c["total"] for c in roll["contestants"]] == [9, 11]
    assert roll["winner"] == "ogre"


def test_r6_a_player_cannot_oppose_an_npc_but_a_gm_can(ledger: Ledger, table: str) -> None:
    message = ledger.refused("ann", "opposed", table, "1d20", "--vs", "ogre", "1d20+4")
    assert message == "only a GM may roll for the NPC 'ogre'"
    roll = ledger.data("gm", "opposed", table, "1d20", "--vs", "ogre", "1d20+4", "--faces", "18,2")
    assert roll["winner"] == "gm"


def test_r6_opposed_needs_two_sides_and_the_right_faces(ledger: Ledger, table: str) -> None:
    assert ledger.refused("ann", "opposed", table, "1d20", "--vs", "ann", "1d20") == (
        "an opposed check needs two different sides"
    )
    message = ledger.refused("gm", "opposed", table, "1d20", "--vs", "ogre", "1d20", "--faces", "7")
    assert message == "not enough faces: die 2 (a d20) needs one more face"
    assert "--vs" in ledger.misused("ann", "opposed", table, "1d20")


def test_gm_rolls_blind_and_players_see_only_that_it_happened(ledger: Ledger, table: str) -> None:
    ledger.ok("gm", "check", table, "1d20+3", "--target", "15", "--blind", "--faces", "16")
    seen = ledger.data("ann", "session", "show", table)["rolls"][0]
    assert seen["status"] == "hidden"
    assert "dice" not in seen and "total" not in seen
    assert "#1: the GM rolled blind" in ledger.ok("ann", "session", "show", table)
    assert ledger.data("gm", "session", "show", table)["rolls"][0]["total"] == 19


def test_player_rolls_blind_but_cannot_reveal_a_blind_roll(ledger: Ledger, table: str) -> None:
    ledger.ok("gm", "roll", table, "1d6", "--blind", "--faces", "2")
    refusal = ledger.refused("ann", "reveal", table, "1")
    assert refusal == "only a GM may reveal a gm or blind roll"
    ledger.ok("ann", "roll", table, "1d6", "--blind", "--faces", "5")  # hidden from ann too
    assert "#2: ann rolled blind" in ledger.ok("ann", "session", "show", table)


def test_gm_reveals_a_blind_roll_to_the_players(ledger: Ledger, table: str) -> None:
    ledger.ok("gm", "roll", table, "1d6", "--blind", "--faces", "4")
    ledger.ok("gm", "roll", table, "1d6", "--faces", "4")
    out = ledger.ok("gm", "reveal", table, "1")
    assert out == "#1 gm effect [blind, revealed]: 1d6 (4) = 4\n"
    assert ledger.data("bob", "session", "show", table)["rolls"][0]["total"] == 4
    assert (
        ledger.refused("gm", "reveal", table, "1")
        == "roll 1 is not hidden: everyone sees it already"
    )
    refusal = ledger.refused("gm", "reveal", table, "2")
    assert refusal == "roll 2 is not hidden: everyone sees it already"


def test_player_cannot_reveal_the_seed(ledger: Ledger, table: str) -> None:
    assert ledger.refused("ann", "seed", "reveal", table) == "only a GM may reveal a seed"


def test_seed_reveal_lets_anyone_rederive_the_dice(ledger: Ledger, table: str) -> None:
    roll = ledger.data("ann", "roll", table, "3d20n", "--salt", "pepper")
    revealed = ledger.data("gm", "seed", "reveal", table)
    seed = bytes.fromhex(revealed["seed"])
    assert hashlib.sha256(seed).hexdigest() == revealed["commitment"]
    assert revealed["next_epoch"] == 2 and revealed["next_commitment"] != revealed["commitment"]
    source = SeededSource(seed, table, roll["dice"][0]["nonce"], "ann's lucky words", "pepper")
    assert [source.draw(20).face for _ in range(3)] == [d["face"] for d in roll["dice"]]
    later = ledger.data("ann", "roll", table, "1d20")
    assert later["dice"][0]["epoch"] == 2


def test_nonces_stay_gapless_across_rolls_rerolls_and_blind_rolls(
    ledger: Ledger, table: str
) -> None:
    ledger.ok("ann", "roll", table, "1d6", "--reroll", "1")
    ledger.ok("gm", "roll", table, "1d6", "--blind")
    ledger.ok("ann", "reroll", table, "1", "--die", "0")
    ledger.ok("bob", "opposed", table, "1d20", "--vs", "ann", "1d20")
    ledger.ok("bob", "roll", table, "1d6")
    dice = [d for r in ledger.data("gm", "session", "show", table)["rolls"] for d in r["dice"]]
    assert sorted({d["nonce"] for d in dice}) == [1, 2, 3, 4, 5]


def test_r11_a_rerolled_die_is_rerolled_again_by_its_new_index(ledger: Ledger, table: str) -> None:
    ledger.ok("ann", "roll", table, "2d6", "--reroll", "2", "--faces", "1,2")
    first = ledger.data("ann", "reroll", table, "1", "--die", "0", "--faces", "3")
    assert [(d["index"], d["parent"]) for d in first["dice"]][-1] == (2, 0)
    assert "its new die is 2" in ledger.refused("ann", "reroll", table, "1", "--die", "0")
    again = ledger.data("ann", "reroll", table, "1", "--die", "2", "--faces", "5")
    assert (again["status"], again["total"]) == ("resolved", 7)
    live = [d["face"] for d in again["dice"] if not d["discarded"]]
    assert live == [2, 5]


def test_a_session_without_typed_in_dice_refuses_them_on_a_reroll(ledger: Ledger) -> None:
    session_id = ledger.data("gm", "session", "start", "Strict", "--forbid-manual")["session_id"]
    ledger.ok("ann", "session", "join", session_id)
    ledger.ok("ann", "roll", session_id, "1d6", "--reroll", "1")
    message = ledger.refused("ann", "reroll", session_id, "1", "--die", "0", "--faces", "6")
    assert message == "the GM has forbidden typed-in dice in this session"


def test_an_ended_session_refuses_rerolls_reveals_and_seed_reveals(
    ledger: Ledger, table: str
) -> None:
    ledger.ok("gm", "roll", table, "1d6", "--blind", "--faces", "3")
    ledger.ok("gm", "session", "end", table)
    ended = f"session '{table}' has ended"
    assert ledger.refused("gm", "reveal", table, "1") == ended
    assert ledger.refused("gm", "seed", "reveal", table) == ended
    assert ledger.refused("gm", "reroll", table, "1", "--die", "0") == ended


def test_r13_r14_a_die_that_comes_to_count_after_a_reroll_explodes_then(
    ledger: Ledger, table: str
) -> None:
    # Two 20s: the lower index counts and explodes (5); the other waits without a chain.
    first = ledger.data(
        "ann", "check", table, "1d20", "--target", "30", "--adv", "1", "--reroll", "1",
        "--faces", "20,20,5",
    )  # fmt: skip
    assert (first["status"], first["total"]) == ("awaiting_rerolls", 25)
    # Rerolling die 0 to a 4 hands the count to die 1, whose explosion is drawn now (7).
    after = ledger.data("ann", "reroll", table, "1", "--die", "0", "--faces", "4,7")
    assert (after["status"], after["total"], after["success"]) == ("resolved", 27, False)
    live = [(d["index"], d["face"], d["reason"]) for d in after["dice"] if not d["discarded"]]
    assert sorted(live) == [(1, 20, "initial"), (3, 4, "reroll"), (4, 7, "explosion")]
    shown = ledger.data("bob", "session", "show", table)["rolls"][0]
    assert (shown["total"], shown["line"]) == (27, after["line"])


def test_r11_auto_rerolls_with_seeded_dice_keep_the_nonces_gapless(
    ledger: Ledger, table: str
) -> None:
    auto = ledger.data("ann", "roll", table, "6d4n", "--reroll", "3", "--auto-reroll")
    assert auto["status"] == "resolved"
    rerolls = [d for d in auto["dice"] if d["reason"] == "reroll"]
    assert sorted({d["nonce"] for d in auto["dice"]}) == list(range(1, len(rerolls) + 2))
    after = ledger.data("bob", "roll", table, "1d4")
    assert after["dice"][0]["nonce"] == len(rerolls) + 2


# What a player may learn of a hidden blind roll in any output: that it exists, who
# rolled, and where it sits in the log (as the API's authorization matrix allows).
HIDDEN_ROLL_KEYS = frozenset(
    {"session_id", "roll_id", "roller", "mode", "blind", "status"}
    | {"position", "version", "recorded_at", "actor", "event", "hidden", "text", "detail"}
)


def _rolls_of(document: object, roll_id: int) -> Iterator[dict[str, object]]:
    """Yield every object of a JSON document that stands for roll ``roll_id``."""
    if isinstance(document, dict):
        if document.get("roll_id") == roll_id:
            yield document
        for value in document.values():
            yield from _rolls_of(value, roll_id)
    elif isinstance(document, list):
        for value in document:
            yield from _rolls_of(value, roll_id)


def test_no_output_of_the_cli_gives_a_player_a_hidden_rolls_details(
    ledger: Ledger, table: str
) -> None:
    secrets = ("ambush at dawn", "orc chieftain")
    ledger.ok(
        "gm", "check", table, "1d20+3", "--target", "15", "--blind", "--faces", "16",
        "--for", secrets[1], "--label", secrets[0],
    )  # fmt: skip
    ledger.ok("ann", "roll", table, "1d6", "--faces", "2")
    human = [
        ledger.ok("ann", "session", "show", table),
        ledger.ok("ann", "replay", table),
        ledger.ok("ann", "replay", table, "--until-position", "100"),
        ledger.ok("ann", "stats", "--session", table),
    ]
    lines = [
        *ledger.ok("ann", "replay", table, "--json").splitlines(),
        *ledger.ok("ann", "replay", table, "--until-position", "100", "--json").splitlines(),
    ]
    documents = [
        ledger.data("ann", "session", "show", table),
        ledger.data("ann", "stats", "--session", table, "--format", "json"),
        *(json.loads(line) for line in lines),
    ]
    texts = human + [json.dumps(document) for document in documents]
    assert not [(secret, text) for secret in secrets for text in texts if secret in text]
    seen = [roll for document in documents for roll in _rolls_of(document, 1)]
    assert seen and all(set(roll) <= HIDDEN_ROLL_KEYS for roll in seen)
    assert "#1: the GM rolled blind" in human[0]
    # The GM sees it whole, in the same outputs.
    assert secrets[0] in ledger.ok("gm", "session", "show", table)
    assert ledger.data("gm", "session", "show", table)["rolls"][0]["total"] == 19
