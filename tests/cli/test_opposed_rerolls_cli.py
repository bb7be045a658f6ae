"""Opposed checks whose sides reroll, played from the command line with typed-in faces.

docs/rules.md, "Rerolls in an opposed check": both sides roll; the request's side takes
its turn, then the other side; only then is the round compared, and a tie rolls a fresh
round, into which what a side left carries.
"""

from __future__ import annotations

from tests.cli.conftest import Ledger

HOW = "`diceledger reroll {t} {r} --die N` or `diceledger accept {t} {r}`"


def waiting(table: str, roll: int, name: str, left: int) -> str:
    return f"  awaiting {name}'s rerolls: {left} left (effect); " + HOW.format(t=table, r=roll)


def test_r6_r11_r14_both_sides_reroll_in_turn_and_then_the_round_is_compared(
    ledger: Ledger, table: str
) -> None:
    # ann types in her own die; bob's comes from the server's dice, whatever it shows, and
    # bob's reroll (typed in by bob) replaces it with its chain, if any.
    out = ledger.ok(
        "ann", "opposed", table, "1d20+2", "--vs", "bob", "1d20",
        "--reroll", "1", "--vs-reroll", "1", "--faces", "3",
    )  # fmt: skip
    lines = out.splitlines()
    assert lines[0] == "#1 ann opposed vs bob:"
    assert lines[1].startswith("  round 1: ann 1d20 (3) + 2 = 5, bob 1d20 (")
    assert lines[2:] == [waiting(table, 1, "ann", 1)]
    out = ledger.ok("ann", "reroll", table, "1", "--die", "0", "--faces", "14")
    assert out.splitlines()[1].startswith("  round 1: ann 1d20 (~~3~~ 14) + 2 = 16, bob 1d20 (")
    assert out.splitlines()[2:] == [waiting(table, 1, "bob", 1)]
    out = ledger.ok("bob", "reroll", table, "1", "--die", "0", "--faces", "17")
    assert out.splitlines()[1].startswith("  round 1: ann 1d20 (~~3~~ 14) + 2 = 16, bob 1d20 (~~")
    assert out.splitlines()[1].endswith(" 17) = 17")
    assert out.splitlines()[2:] == ["  bob wins"]
    types = [t for t in ledger.event_types(table) if t != "DieExploded"]
    assert types[-6:] == [
        "RollRequested",
        "DiceRolled",
        "DiceRolled",
        "DieRerolled",
        "DieRerolled",
        "CheckResolved",
    ]
    roll = ledger.data("ann", "session", "show", table)["rolls"][0]
    assert [(c["name"], c["total"], c["rerolls_spent"]) for c in roll["contestants"]] == [
        ("ann", 16, 1),
        ("bob", 17, 1),
    ]


def test_r6_a_player_types_in_only_their_own_side(ledger: Ledger, table: str) -> None:
    refusal = ledger.refused(
        "ann", "opposed", table, "1d20", "--vs", "bob", "1d20", "--faces", "17,9"
    )
    assert refusal == (
        "too many faces: the roll used 1, 1 left over: faces typed in are only for your "
        "own side, in one round; bob's dice are theirs, rolled by the server here, as is "
        "any round after a tie"
    )
    assert "RollRequested" not in ledger.event_types(table)
    roll = ledger.data(
        "ann", "opposed", table, "1d20", "--vs", "bob", "1d20", "--vs-reroll", "1",
        "--faces", "17",
    )  # fmt: skip
    first = [(d["side_name"], d["round"], d["source"], d["typed_by"]) for d in roll["dice"]][:2]
    assert first == [("ann", 1, "manual", "ann"), ("bob", 1, "seeded", None)]
    roll = ledger.data("bob", "reroll", table, "1", "--die", "0", "--faces", "4")
    rerolled = [d for d in roll["dice"] if d["reason"] == "reroll"]
    assert [(d["side_name"], d["typed_by"], d["face"]) for d in rerolled] == [("bob", "bob", 4)]


def test_r6_r11_a_tie_after_a_reroll_rolls_the_next_round_from_the_same_faces(
    ledger: Ledger, table: str
) -> None:
    ledger.ok(
        "gm", "opposed", table, "1d20+2", "--vs", "ogre", "1d20", "--reroll", "1",
        "--faces", "3,12",
    )  # fmt: skip
    # The reroll's face, then (12 all: a tie) the fresh round, the GM's die then the ogre's:
    # the GM decides both sides, the ogre being an NPC.
    out = ledger.ok("gm", "reroll", table, "1", "--die", "0", "--faces", "10,15,9")
    assert out.splitlines() == [
        "#1 gm opposed vs ogre:",
        "  round 1: gm 1d20 (~~3~~ 10) + 2 = 12, ogre 1d20 (12) = 12: tie",
        "  round 2: gm 1d20 (15) + 2 = 17, ogre 1d20 (9) = 9",
        "  gm wins after 2 rounds",
    ]
    events = ledger.events(table)
    nonces = {
        die["nonce"]
        for record in events[-4:-1]
        for die in record.data.get("dice", [record.data.get("die")])
        if die
    }
    assert [r.event_type for r in events[-5:]] == [
        "DieRerolled",
        "OpposedCheckTied",
        "DiceRolled",
        "DiceRolled",
        "CheckResolved",
    ]
    assert nonces == {2}  # the reroll's nonce, for the fresh round too


def test_r6_r11_what_a_side_leaves_carries_into_the_round_after_a_tie(
    ledger: Ledger, table: str
) -> None:
    ledger.ok(
        "gm", "opposed", table, "1d20+2", "--vs", "ogre", "1d20", "--reroll", "2",
        "--vs-reroll", "1", "--faces", "3,12",
    )  # fmt: skip
    ledger.ok("gm", "reroll", table, "1", "--die", "0", "--faces", "10")
    ledger.ok("gm", "accept", table, "1")
    out = ledger.ok("gm", "accept", table, "1", "--faces", "4,6")
    assert out.splitlines() == [
        "#1 gm opposed vs ogre:",
        "  round 1: gm 1d20 (~~3~~ 10) + 2 = 12, ogre 1d20 (12) = 12: tie",
        "  round 2: gm 1d20 (4) + 2 = 6, ogre 1d20 (6) = 6",
        waiting(table, 1, "gm", 1),
    ]
    ledger.ok("gm", "reroll", table, "1", "--die", "0", "--faces", "15")
    out = ledger.ok("gm", "reroll", table, "1", "--die", "0", "--faces", "20,1")
    assert out.splitlines()[-2:] == [
        "  round 2: gm 1d20 (~~4~~ 15) + 2 = 17, ogre 1d20 (~~6~~ 20!1) = 21",
        "  ogre wins after 2 rounds",
    ]


def test_r11_nobody_rerolls_or_accepts_the_other_sides_dice(ledger: Ledger, table: str) -> None:
    ledger.ok("cy", "session", "join", table)
    ledger.ok(
        "ann", "opposed", table, "1d20", "--vs", "bob", "1d20", "--reroll", "1",
        "--vs-reroll", "1", "--faces", "3",
    )  # fmt: skip
    ann_first = (
        "roll 1 waits for ann's side; only ann may {} it, and nobody rerolls the other side's dice"
    )
    assert ledger.refused("bob", "reroll", table, "1", "--die", "0") == ann_first.format("reroll")
    assert ledger.refused("bob", "accept", table, "1") == ann_first.format("accept")
    assert ledger.refused("cy", "reroll", table, "1", "--die", "0") == ann_first.format("reroll")
    assert ledger.refused("gm", "accept", table, "1") == ann_first.format("accept")
    ledger.ok("ann", "accept", table, "1")
    bob_now = (
        "roll 1 waits for bob's side; only bob may {} it, and nobody rerolls the other side's dice"
    )
    assert ledger.refused("ann", "reroll", table, "1", "--die", "0") == bob_now.format("reroll")
    assert ledger.refused("ann", "accept", table, "1") == bob_now.format("accept")


def test_r11_only_a_gm_rerolls_an_npc_side(ledger: Ledger, table: str) -> None:
    ledger.ok(
        "gm", "opposed", table, "1d20", "--for", "ann", "--vs", "orc", "1d20+4",
        "--vs-reroll", "1", "--faces", "15,2",
    )  # fmt: skip
    message = ledger.refused("ann", "reroll", table, "1", "--die", "0")
    assert message.startswith("roll 1 waits for orc's side; only a GM may reroll it")
    roll = ledger.data("gm", "reroll", table, "1", "--die", "0", "--faces", "19")
    assert (roll["winner"], roll["status"]) == ("orc", "resolved")


def test_opposed_checks_with_rerolls_verify_once_played(ledger: Ledger, table: str) -> None:
    test_r6_r11_a_tie_after_a_reroll_rolls_the_next_round_from_the_same_faces(ledger, table)
    ledger.ok("ann", "opposed", table, "1d20", "--vs", "bob", "1d20", "--vs-reroll", "2")
    ledger.ok("gm", "session", "end", table)
    out = ledger.ok("ann", "verify", table)
    assert "verified: the chain, versions, rules, nonces" in out


def test_r6_the_review_labels_each_die_by_side_round_and_typist(ledger: Ledger, table: str) -> None:
    ledger.ok(
        "ann", "opposed", table, "1d20+30", "--vs", "bob", "1d20", "--no-explode",
        "--vs-reroll", "1", "--faces", "17",
    )  # fmt: skip
    ledger.ok("bob", "reroll", table, "1", "--die", "0", "--faces", "4")
    ledger.ok("bob", "dispute", "open", table, "1", "--reason", "ann typed her die")
    lines = ledger.ok("gm", "dispute", "review", table, "1").splitlines()
    assert "  ann, round 1: #0 d20 = 17  initial; typed in by ann: cannot be verified" in lines
    assert "  bob, round 1: #1 d20 = 4  reroll of #0; typed in by bob: cannot be verified" in lines
    (seeded,) = [line for line in lines if line.startswith("  bob, round 1: #0 d20 = ")]
    assert "initial; epoch 1 nonce 1 block" in seeded


def test_r6_a_player_cannot_give_another_members_side_advantage_or_ease(
    ledger: Ledger, table: str
) -> None:
    # Each side's advantage and ease are its own: ann may not hinder bob's side, nor stack
    # Disadvantage on it; a GM, who states the circumstances, may.
    for option, amount in [("--vs-dis", "2"), ("--vs-hindered", "3"), ("--vs-adv", "1")]:
        refusal = ledger.refused(
            "ann", "opposed", table, "1d20", "--vs", "bob", "1d20", option, amount, "--faces", "9"
        )
        assert refusal == (
            "only a GM may give bob's side Advantage, Disadvantage, Eased or Hindered: "
            "each side's are its own"
        )
    assert "RollRequested" not in ledger.event_types(table)
    out = ledger.ok("gm", "opposed", table, "1d20", "--for", "ann", "--vs", "bob", "1d20",
                    "--vs-dis", "2")  # fmt: skip
    assert out.splitlines()[0] == "#1 ann opposed vs bob:"


def test_r6_a_player_cannot_choose_the_dice_of_another_members_side(
    ledger: Ledger, table: str
) -> None:
    # bob's side rolls one d20 and his MODs (R6): ann may not give him a d4, a second die,
    # a d20 that never explodes, or a sum of her making; a GM may state other dice.
    for expression in ["1d4", "2d20", "1d20n", "1d20+1d6", "1d20-@STR", "(1d20)"]:
        refusal = ledger.refused("ann", "opposed", table, "1d20", "--vs", "bob", expression)
        assert refusal == (
            "bob's side rolls one d20 and their MODs (1d20+@STR): only a GM may give them "
            "other dice or another sum"
        ), expression
    assert "RollRequested" not in ledger.event_types(table)
    out = ledger.ok("gm", "opposed", table, "1d20", "--for", "ann", "--vs", "bob", "1d20+1d4")
    assert out.splitlines()[0] == "#1 ann opposed vs bob:"


def test_r6_a_player_cannot_set_the_modifier_of_another_members_side(
    ledger: Ledger, table: str
) -> None:
    # bob has no sheet: his side rolls his dice as they are, with no MOD ann chose.
    refusal = ledger.refused("ann", "opposed", table, "1d20", "--vs", "bob", "1d20-5")
    assert refusal == (
        "name bob's MODs from their sheet (1d20+@STR), not as numbers: each side's MODs are its own"
    )
    assert "RollRequested" not in ledger.event_types(table)


def test_r6_the_other_member_rolls_their_own_side_with_roll_side(
    ledger: Ledger, table: str
) -> None:
    # bob rolls his own d20 at his table and types it in; ann may not roll it for him.
    out = ledger.ok(
        "ann", "opposed", table, "1d20+2", "--vs", "bob", "1d20", "--vs-rolls-own",
        "--faces", "9", "--no-explode",
    )  # fmt: skip
    assert out.splitlines() == [
        "#1 ann opposed vs bob:",
        "  round 1: ann 1d20 (9) + 2 = 11, bob yet to roll their own dice",
        f"  awaiting bob's own dice: `diceledger roll-side {table} 1 [--faces N,...]`",
    ]
    refusal = ledger.refused("ann", "roll-side", table, "1", "--faces", "20")
    assert refusal == (
        "roll 1 waits for bob's side; only bob may roll it, and nobody rolls the other side's dice"
    )
    out = ledger.ok("bob", "roll-side", table, "1", "--faces", "14")
    assert out.splitlines() == [
        "#1 ann opposed vs bob:",
        "  round 1: ann 1d20 (9) + 2 = 11, bob 1d20 (14) = 14",
        "  bob wins",
    ]
    again = ledger.refused("bob", "roll-side", table, "1")
    assert again == "roll 1 is already resolved"
    report = ledger.data("gm", "verify", table)
    assert (report["ok"], report["manual_dice"]) == (True, 2), report
