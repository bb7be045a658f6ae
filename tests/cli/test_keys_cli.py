"""Keys: listing and rotating them, what a retired key may still vouch for, exit codes.

The one who attacks here holds a retired signing key (the reason to rotate), or makes a
key of their own, and hands a player or a store a file signed with it.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from diceledger.cli.main import cli
from diceledger.domain.checkpoint import Checkpoint, origin_for
from diceledger.domain.export_proof import ExportProof
from diceledger.domain.hashchain import ChainHead
from diceledger.domain.merkle import MerkleTree
from diceledger.domain.receipt import Receipt
from diceledger.infra.ledger.signing import SigningKey, key_name_for, open_keyring
from diceledger.infra.store.exporting import export_lines, read_export, write_lines
from diceledger.infra.store.sealing import seal
from tests.cli.conftest import Ledger
from tests.infra.support import new_event


def run(url: str, *args: str, key: Path | None = None, kept: Path | None = None) -> Result:
    """Run a command as gm; ``key`` and ``kept`` make it another machine's."""
    env = {"NO_COLOR": "1", "DICELEDGER_DB": url}
    if key is not None:
        env["DICELEDGER_SIGNING_KEY"] = str(key)
    if kept is not None:
        env["DICELEDGER_CHECKPOINTS"] = str(kept)
    return CliRunner(env=env).invoke(cli, ["--as", "gm", *args])


def eve_joins(export: Path, signer: SigningKey, table: str) -> None:
    """Append a rules-valid forged join to an export, rechained, with a proof ``signer`` signs."""
    records = list(read_export(export))
    head = records[-1]
    joined = new_event("PlayerJoined", name="eve", role="player", client_seed="e", added_by="eve")
    (forged,) = seal(table, [joined], ChainHead(head.stream_version, head.hash), datetime.now(UTC))
    forged = replace(forged, position=head.position + 1)
    records.append(forged)
    write_lines(export_lines(records), export)
    leaves = [bytes.fromhex(r.hash) for r in records]
    checkpoint = Checkpoint(origin_for(signer.name, table), len(leaves), MerkleTree(leaves).root())
    proof = ExportProof((str(signer.sign_checkpoint(checkpoint)),), (str(signer.verifier),))
    Path(f"{export}.proof.json").write_text(proof.to_json())


@pytest.fixture
def own_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Give the store a signing key of its own: a rotation must not touch the run's key."""
    path = tmp_path / "rotating.key"
    monkeypatch.setenv("DICELEDGER_SIGNING_KEY", str(path))
    return path


def test_keys_list_shows_the_current_key_and_rotate_retires_it(
    own_key: Path, ledger: Ledger, table: str
) -> None:
    before = ledger.data("gm", "keys", "list")
    assert before == {"current": str(open_keyring().current().verifier), "retired": []}
    rotated = ledger.data("gm", "keys", "rotate")
    after = ledger.data("gm", "keys", "list")
    assert after["current"] == rotated["current"] != before["current"]
    assert after["retired"] == [{"verifier_key": before["current"], "successor": after["current"]}]
    ledger.ok("ann", "roll", table, "1d6", "--faces", "3")  # signed by the new key, and kept
    assert ledger.data("gm", "verify", table)["verdict"] == "proven"


def test_a_continuation_signed_by_a_retired_key_is_refused(
    own_key: Path, ledger: Ledger, table: str, tmp_path: Path
) -> None:
    retired = SigningKey.from_text(open_keyring().path.read_text())
    export = tmp_path / "tomb.jsonl"
    ledger.export("gm", table, export)
    ledger.ok("gm", "keys", "rotate")
    eve_joins(export, retired, table)  # the holder of the retired key signs a continuation
    refused = run(ledger.url, "import", str(export))
    assert refused.exit_code == 1, refused.output
    assert f"retired when session '{table}' had" in refused.stderr
    assert "eve" not in ledger.state(table).members
    verified = run(ledger.url, "verify", "--file", str(export))
    assert verified.exit_code == 1, verified.output
    assert f"retired when session '{table}' had" in verified.stderr


def test_an_honest_export_verifies_on_a_machine_with_its_own_key(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    export = tmp_path / "tomb.jsonl"
    ledger.export("gm", table, export)
    server = str(open_keyring().current().verifier)
    receipt = tmp_path / "roll.receipt.json"
    ledger.ok("ann", "check", table, "1d20", "--target", "9", "--faces", "4")
    ledger.ok("ann", "receipt", table, "1", "-o", str(receipt))
    player = f"sqlite:///{tmp_path / 'player.sqlite'}"
    key, kept = tmp_path / "player.key", tmp_path / "player-kept"
    assert run(player, "session", "start", "My own table", key=key, kept=kept).exit_code == 0
    for given in (["--file", str(export)], ["--receipt", str(receipt)]):
        trusted = run(player, "verify", *given, "--trust-key", server, key=key, kept=kept)
        assert trusted.exit_code == 0, trusted.output
        unanchored = run(player, "verify", *given, key=key, kept=kept)
        assert unanchored.exit_code == 3, unanchored.output
        assert "not anchored (exit 3)" in unanchored.stderr


def test_a_forged_receipt_of_sixes_does_not_verify_with_exit_0_on_a_fresh_machine(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    ledger.ok("ann", "roll", table, "1d6", "--faces", "6,6,2")  # a six explodes
    receipt_file = tmp_path / "roll.receipt.json"
    ledger.ok("ann", "receipt", table, "1", "-o", str(receipt_file))
    forger = SigningKey.generate(key_name_for("localhost"))  # anyone can make this name
    receipt = Receipt.parse(receipt_file.read_text())
    head = Checkpoint.parse(receipt.checkpoint.split("\n\n")[0] + "\n")
    resigned = forger.sign_checkpoint(Checkpoint(origin_for(forger.name, table), *head_of(head)))
    forged = replace(receipt, checkpoint=str(resigned), verifier_key=str(forger.verifier))
    receipt_file.write_text(forged.to_json())
    fresh = tmp_path / "fresh"
    result = run(ledger.url, "verify", "--receipt", str(receipt_file), key=fresh / "k", kept=fresh)
    assert result.exit_code == 3, result.output
    assert "not anchored" in result.stderr


def head_of(checkpoint: Checkpoint) -> tuple[int, bytes]:
    return checkpoint.size, checkpoint.root


def test_a_kept_checkpoint_saved_with_a_final_newline_is_the_same_note(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    shown = ledger.data("ann", "checkpoint", table)
    saved = tmp_path / "kept.checkpoint"
    saved.write_text(shown["checkpoint"] + "\n")  # as `jq -r .checkpoint > kept.checkpoint`
    result = run(ledger.url, "verify", table, "--checkpoint", str(saved), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["checkpoints"]["kept"] >= 1
