"""The tampering a kept checkpoint exposes, each caught by `verify --checkpoint`, named.

The cases of issue 16: a dropped last event, a dropped last roll, a session replayed from
scratch with other dice, a forked history shown to two players, a signature by another
key. The one who tampers holds the database (and, where it takes signing again, the
server's key and the heads file beside it); the player holds only what the CLI kept or what
they saved.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner, Result

from diceledger.cli.main import cli
from diceledger.domain.checkpoint import Checkpoint
from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.export_proof import ExportProof
from diceledger.domain.receipt import Receipt
from diceledger.domain.session import commands as cmd
from diceledger.domain.signed_note import SignedNote
from diceledger.infra.app.application import Application
from diceledger.infra.bootstrap import bootstrap
from diceledger.infra.ledger.signing import SigningKey, open_keyring
from diceledger.infra.store.database import make_engine
from tests.cli.conftest import Ledger
from tests.infra.owner_rights import Owner


def run(url: str, *args: str, elsewhere: Path | None = None) -> Result:
    """Run a command as ann; ``elsewhere`` is another machine's folder of kept checkpoints."""
    env = {"NO_COLOR": "1", "DICELEDGER_DB": url}
    if elsewhere is not None:
        env["DICELEDGER_CHECKPOINTS"] = str(elsewhere)
    return CliRunner(env=env).invoke(cli, ["--as", "ann", *args])


def operator_rolls(url: str, table: str, actor: str, face: int) -> None:
    """The operator plays on through the application: each append signed by the server."""
    app = bootstrap(url)
    try:
        check = cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(15), faces=(face,))
        app.request_roll(actor, table, check)
    finally:
        app.close()


def forget_signed_heads() -> None:
    """Cut the heads file beside the key, as only the key's holder can: without this, the
    server refuses to sign again what it signed before (infra/ledger/signed_heads.py)."""
    Path(os.environ["DICELEDGER_SIGNED_HEADS"]).unlink(missing_ok=True)


def failed(result: Result) -> str:
    """Assert a verify failed; return its stderr."""
    assert result.exit_code == 1, result.output
    return result.stderr


def signer(kept_file: Path) -> str:
    """Return the name of the key a kept checkpoint's origin names."""
    return Checkpoint.parse(SignedNote.parse(kept_file.read_text()).text).origin.rpartition("/")[0]


def kept(ledger: Ledger, table: str, path: Path) -> Path:
    ledger.ok("ann", "checkpoint", table, "-o", str(path))
    return path


def replay_elsewhere(url: str, table: str, faces: tuple[int, ...]) -> Application:
    """Play the table again, same id and same key, on another store, with other dice."""
    forget_signed_heads()
    app = bootstrap(url)
    app.reseed(lambda: secrets.token_bytes(32), lambda: table.rsplit("-", 1)[1])
    sid = app.start_session("gm", "Tomb of Ash").session_id
    assert sid == table
    app.join("ann", sid, cmd.JoinSession("ann", "ann's lucky words"))
    app.join("bob", sid, cmd.JoinSession("bob"))
    app.request_roll(
        "ann", sid, cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(15), faces=faces)
    )
    return app


def ann_checks(ledger: Ledger, table: str, face: int) -> None:
    ledger.ok("ann", "check", table, "1d20", "--target", "15", "--faces", str(face))


def test_a_dropped_last_event_is_caught(ledger: Ledger, table: str, tmp_path: Path) -> None:
    ann_checks(ledger, table, 14)
    checkpoint = kept(ledger, table, tmp_path / "ann.checkpoint")
    size = len(ledger.events(table))
    owner = Owner(make_engine(ledger.url), table)
    owner.drop_triggers()
    owner.delete_after(size - 1)
    owner.engine.dispose()
    err = failed(run(ledger.url, "verify", table, "--checkpoint", str(checkpoint)))
    assert (
        f"CHECKPOINT FAILED: {checkpoint}: the log has {size - 1} events; "
        f"the kept checkpoint covers {size}: events were removed"
    ) in err
    assert "the store's latest checkpoint: the log has" in err  # its own signature too


def test_a_dropped_last_line_of_an_export_is_caught(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    ann_checks(ledger, table, 14)
    checkpoint = kept(ledger, table, tmp_path / "ann.checkpoint")
    export = tmp_path / "tomb.jsonl"
    ledger.export("gm", table, export)
    lines = export.read_text().splitlines(keepends=True)
    export.write_text("".join(lines[:-1]))  # the chain still links: only the end is gone
    result = run(ledger.url, "verify", "--file", str(export), "--checkpoint", str(checkpoint))
    err = failed(result)
    assert f"{checkpoint}: the log has {len(lines) - 1} events" in err
    assert "the export's proof: the log has" in err


def test_a_dropped_last_roll_signed_again_is_caught(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    ann_checks(ledger, table, 14)
    before_roll = len(ledger.events(table))
    ann_checks(ledger, table, 2)  # the roll someone wants gone
    checkpoint = kept(ledger, table, tmp_path / "ann.checkpoint")
    receipt = tmp_path / "roll-2.json"
    ledger.ok("ann", "receipt", table, "2", "-o", str(receipt))
    # The operator cuts the roll, with its tree and checkpoints, and the table plays on.
    owner = Owner(make_engine(ledger.url), table)
    owner.drop_triggers()
    owner.rewind(before_roll)
    owner.engine.dispose()
    forget_signed_heads()
    operator_rolls(ledger.url, table, "ann", 19)
    operator_rolls(ledger.url, table, "bob", 7)
    for evidence in (checkpoint, receipt):
        err = failed(run(ledger.url, "verify", table, "--checkpoint", str(evidence)))
        assert "events of the log are not the ones the kept checkpoint covers" in err
        assert "the log was rewritten" in err
    # The receipt still proves, with no database, that roll 2 was in the signed log.
    shown = run(ledger.url, "verify", "--receipt", str(receipt))
    assert shown.exit_code == 0 and "roll 2" in shown.stdout and shown.stderr == ""


def test_the_cli_warns_when_a_later_answer_does_not_extend_what_it_kept(
    ledger: Ledger, table: str
) -> None:
    ann_checks(ledger, table, 14)
    before_roll = len(ledger.events(table))
    ann_checks(ledger, table, 2)  # the CLI keeps the checkpoint this answer carried
    owner = Owner(make_engine(ledger.url), table)
    owner.drop_triggers()
    owner.rewind(before_roll)
    owner.engine.dispose()
    forget_signed_heads()
    result = run(ledger.url, "check", table, "1d20", "--target", "15", "--faces", "19")
    assert result.exit_code == 0  # the roll is made; the warning is about the log
    assert result.stderr.startswith(f"WARNING: session '{table}': the checkpoint of ")
    assert "does not extend the one of" in result.stderr
    again = run(ledger.url, "verify", table)
    assert again.exit_code == 1 and "kept by this machine" in again.stderr


def test_a_session_replayed_from_scratch_with_other_dice_is_caught(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    ann_checks(ledger, table, 14)
    checkpoint = kept(ledger, table, tmp_path / "ann.checkpoint")
    other = f"sqlite:///{tmp_path / 'replayed.sqlite'}"
    replay_elsewhere(other, table, (19,)).close()
    err = failed(run(other, "verify", table, "--checkpoint", str(checkpoint)))
    assert f"CHECKPOINT FAILED: {checkpoint}: the first" in err
    assert "the log was rewritten" in err
    export = tmp_path / "replayed.jsonl"
    assert run(other, "--as", "gm", "export", table, "-o", str(export)).exit_code == 0
    err = failed(run(other, "verify", "--file", str(export), "--checkpoint", str(checkpoint)))
    assert "the log was rewritten" in err


def test_a_forked_history_shown_to_two_players_is_caught(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    ann_checks(ledger, table, 14)
    ann_saw = kept(ledger, table, tmp_path / "ann.checkpoint")
    other = f"sqlite:///{tmp_path / 'fork.sqlite'}"
    replay_elsewhere(other, table, (3,)).close()  # what bob is shown
    bob_saw = tmp_path / "bob.checkpoint"
    assert run(other, "checkpoint", table, "-o", str(bob_saw)).exit_code == 0
    assert ann_saw.read_text() != bob_saw.read_text()
    both = ("--checkpoint", str(ann_saw), "--checkpoint", str(bob_saw))
    err = failed(run(ledger.url, "verify", table, *both))
    assert (
        f"CHECKPOINT FAILED: {ann_saw} and {bob_saw}: a fork: {signer(ann_saw)} signed two "
        f"different logs of {len(ledger.events(table))} events of session '{table}'"
    ) in err
    assert f"CHECKPOINT FAILED: {bob_saw}: the first" in err


def test_a_signature_by_another_key_is_caught(ledger: Ledger, table: str, tmp_path: Path) -> None:
    ann_checks(ledger, table, 14)
    export = tmp_path / "tomb.jsonl"
    ledger.export("gm", table, export)
    impostor = SigningKey.generate(open_keyring().current().name)  # the same name, another key
    proof_file = Path(f"{export}.proof.json")
    proof = ExportProof.parse(proof_file.read_text())
    genuine = proof.checkpoints[0]
    resigned = impostor.sign_checkpoint(Checkpoint.parse(SignedNote.parse(genuine).text))
    proof_file.write_text(ExportProof((str(resigned),), (str(impostor.verifier),)).to_json())
    err = failed(run(ledger.url, "verify", "--file", str(export)))
    assert "CHECKPOINT FAILED: the export's proof: signature: no trusted key signed this note" in (
        err
    )
    forged_kept = tmp_path / "forged.checkpoint"
    forged_kept.write_text(str(resigned))
    err = failed(run(ledger.url, "verify", table, "--checkpoint", str(forged_kept)))
    assert f"{forged_kept}: signature: no trusted key signed this note" in err
    receipt_file = tmp_path / "roll-1.json"
    ledger.ok("ann", "receipt", table, "1", "-o", str(receipt_file))
    receipt = Receipt.parse(receipt_file.read_text())
    tampered = replace(receipt, checkpoint=str(resigned), verifier_key=str(impostor.verifier))
    receipt_file.write_text(tampered.to_json())
    result = run(ledger.url, "verify", "--receipt", str(receipt_file))
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: no trusted key signed this note")


def test_a_receipt_with_a_changed_face_is_caught(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    ann_checks(ledger, table, 14)
    path = tmp_path / "roll-1.json"
    ledger.ok("ann", "receipt", table, "1", "-o", str(path))
    document = json.loads(path.read_text())
    for event in document["events"]:
        if event["record"]["event_type"] == "DiceRolled":
            event["record"]["data"]["dice"][0]["face"] = 20
    path.write_text(json.dumps(document))
    result = run(ledger.url, "verify", "--receipt", str(path))
    assert result.exit_code == 1
    assert "is not in the signed log" in result.stderr


def test_verify_says_whether_it_checked_the_log_alone_or_against_kept_checkpoints(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    ann_checks(ledger, table, 14)
    export = tmp_path / "tomb.jsonl"
    ledger.export("gm", table, export)
    signed = run(ledger.url, "verify", "--file", str(export), elsewhere=tmp_path / "fresh")
    assert signed.exit_code == 0
    assert "checked against: the log and its signed checkpoint" in signed.stdout
    proof = Path(f"{export}.proof.json")
    kept_proof = proof.read_text()
    proof.unlink()
    alone = run(ledger.url, "verify", "--file", str(export), elsewhere=tmp_path / "fresh")
    assert alone.exit_code == 0
    assert "checked against: the log alone; it agrees with itself" in alone.stdout
    proof.write_text(kept_proof)
    checkpoint = kept(ledger, table, tmp_path / "ann.checkpoint")
    against = run(ledger.url, "verify", "--file", str(export), "--checkpoint", str(checkpoint))
    assert against.exit_code == 0, against.output
    assert "checked against: the log and kept checkpoints" in against.stdout
    as_json = json.loads(run(ledger.url, "verify", table, "--json").stdout)
    assert as_json["checkpoints"]["checked"] == "the log and kept checkpoints"
    assert as_json["anchor"] == "kept-checkpoint"
    assert as_json["checkpoints"]["ok"] is True


def test_verify_of_a_stored_session_reaches_the_servers_verdict_with_nothing_kept(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    ann_checks(ledger, table, 14)
    size = len(ledger.events(table))
    owner = Owner(make_engine(ledger.url), table)
    try:
        owner.forge_insert(
            "PlayerJoined", name="eve", role="player", client_seed="eve's", added_by="eve"
        )
        shown = run(ledger.url, "verify", table, "--json", elsewhere=tmp_path / "fresh")
        assert shown.exit_code == 1
        verdict = json.loads(shown.stdout)
        assert verdict["ok"] is False and verdict["verdict"] == "failed"
        assert (
            f"the log has {size + 1} events; its checkpoint signs {size}"
            in (verdict["first_failure"]["reason"])
        )
        owner.drop_triggers()
        owner.delete_after(size - 3)  # the forged join and the whole roll before it, gone
        err = failed(run(ledger.url, "verify", table, elsewhere=tmp_path / "fresh"))
        assert f"the log has {size - 3} events; its checkpoint signs {size}" in err
    finally:
        owner.engine.dispose()
