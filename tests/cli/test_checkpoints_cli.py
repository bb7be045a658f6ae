"""Checkpoints on the command line: every answer carries one, the CLI keeps it, and more.

`checkpoint` and `receipt` print what a player keeps; imports take in only signed history;
an operator adopts sessions older than the ledger; no GM chooses entropy after the seed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from diceledger.cli.main import cli
from diceledger.domain.checkpoint import Checkpoint
from diceledger.domain.fingerprint import checkpoint_label
from diceledger.domain.signed_note import SignedNote, VerifierKey
from diceledger.infra.app.application import Application
from diceledger.infra.ledger.signing import SigningKey, open_keyring
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.sql import SqlEventStore
from diceledger.infra.vault.seeds import SeedVault
from tests.cli.conftest import Ledger


def head(note: str) -> Checkpoint:
    return Checkpoint.parse(SignedNote.parse(note).text)


def kept_folder() -> Path:
    return Path(os.environ["DICELEDGER_CHECKPOINTS"])


def run_on(url: str, *args: str, signing_key: Path | None = None) -> Result:
    env = {"NO_COLOR": "1", "DICELEDGER_DB": url}
    if signing_key is not None:
        env["DICELEDGER_SIGNING_KEY"] = str(signing_key)
    return CliRunner(env=env).invoke(cli, ["--as", "gm", *args])


def test_every_state_changing_answer_carries_the_checkpoint_it_produced(
    ledger: Ledger, table: str
) -> None:
    answers = [
        ledger.data("gm", "session", "start", "Another table"),
        ledger.data("cat", "session", "join", table),
        ledger.data("ann", "check", table, "1d20", "--target", "9", "--faces", "4"),
        ledger.data("ann", "roll", table, "1d6", "--reroll", "1", "--faces", "2"),
        ledger.data("ann", "reroll", table, "2", "--die", "0", "--faces", "5"),
        ledger.data("bob", "roll", table, "1d6", "--reroll", "1", "--faces", "3"),
        ledger.data("bob", "accept", table, "3"),
        ledger.data("gm", "roll", table, "1d4", "--blind", "--faces", "1"),
        ledger.data("gm", "reveal", table, "4"),
        ledger.data("ann", "opposed", table, "1d20", "--vs", "bob", "1d20", "--faces", "9"),
        ledger.data("bob", "dispute", "open", table, "1", "--reason", "cocked"),
        ledger.data("gm", "dispute", "resolve", table, "1", "--uphold"),
        ledger.data("gm", "seed", "reveal", table),
        ledger.data("gm", "session", "end", table),
    ]
    sizes = [head(answer["checkpoint"]).size for answer in answers[1:]]
    assert sizes == sorted(sizes) and sizes[-1] == len(ledger.events(table))
    assert head(answers[0]["checkpoint"]).origin.endswith(answers[0]["session_id"])
    assert answers[2]["roll_id"] == 1 and answers[2]["status"] == "resolved"  # keys kept


def test_the_cli_keeps_the_latest_checkpoint_per_session_and_key(
    ledger: Ledger, table: str
) -> None:
    last = ledger.data("ann", "roll", table, "1d6")["checkpoint"]
    key = open_keyring().current().verifier
    folder = kept_folder() / key.key_id.hex()
    assert (folder / f"{table}.checkpoint").read_text() == last
    assert VerifierKey.parse((folder / "key").read_text().strip()) == key


def test_checkpoint_prints_the_signed_note_and_writes_it_to_a_file(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    note = ledger.ok("ann", "checkpoint", table)
    assert head(note).size == len(ledger.events(table))
    path = tmp_path / "kept.checkpoint"
    shown = ledger.data("ann", "checkpoint", table, "-o", str(path))
    assert path.read_text() == note == shown["checkpoint"]
    assert shown["size"] == head(note).size and shown["root"] == head(note).root.hex()
    assert shown["verifier_key"] == str(open_keyring().current().verifier)


def test_checkpoint_names_its_size_and_words_as_the_pages_and_discord_do(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    note = ledger.ok("ann", "checkpoint", table)
    label = checkpoint_label(head(note).size, head(note).root)
    assert ledger.data("ann", "checkpoint", table)["words"] == label.split(" \u00b7 ")[1]
    written = ledger.ok("ann", "checkpoint", table, "-o", str(tmp_path / "kept.checkpoint"))
    assert written.splitlines()[-1] == label


def test_a_receipt_is_printed_and_checked_with_no_database(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    ledger.ok("ann", "check", table, "1d20+2", "--target", "12", "--faces", "11")
    path = tmp_path / "roll-1.json"
    ledger.ok("ann", "receipt", table, "1", "-o", str(path))
    document = json.loads(path.read_text())
    assert document["format"] == "diceledger/receipt/v1"
    assert document["verifier_key"] == str(open_keyring().current().verifier)
    nowhere = CliRunner(env={"NO_COLOR": "1", "DICELEDGER_DB": "sqlite:////nonexistent/x.db"})
    checked = nowhere.invoke(cli, ["verify", "--receipt", str(path)])
    assert checked.exit_code == 0, checked.output
    assert f"receipt of session {table}, roll 1:" in checked.stdout
    assert "verified: each event is in the log of" in checked.stdout


def test_a_players_receipt_of_a_hidden_blind_roll_is_refused(ledger: Ledger, table: str) -> None:
    ledger.ok("gm", "roll", table, "1d20", "--blind", "--for", "orc")
    assert ledger.refused("ann", "receipt", table, "1") == f"no roll 1 in session '{table}'"
    assert json.loads(ledger.ok("gm", "receipt", table, "1"))["events"]


def test_an_import_takes_in_a_session_signed_by_a_trusted_key(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    export = tmp_path / "tomb.jsonl"
    ledger.export("gm", table, export)
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    result = run_on(other, "--json", "import", str(export))
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert head(answer["checkpoint"]).size == answer["events"] == answer["appended"]
    assert answer["checkpoints"] == {table: answer["checkpoint"]}
    played_on = run_on(other, "roll", table, "1d6", "--faces", "4")  # signed here now
    assert (played_on.exit_code, played_on.stderr) == (0, "")


def test_an_import_of_another_servers_export_needs_its_key(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    export = tmp_path / "tomb.jsonl"
    ledger.export("gm", table, export)
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    their_key = tmp_path / "their.key"  # the importing store signs with a key of its own
    refused = run_on(other, "import", str(export), signing_key=their_key)
    assert refused.exit_code == 1
    assert refused.stderr == (
        "Error: no trusted key signed this note; it is signed by "
        f"{open_keyring().current().name} ({open_keyring().current().key_id.hex()})\n"
    )
    trusted = str(open_keyring().current().verifier)
    taken = run_on(other, "import", str(export), "--trust-key", trusted, signing_key=their_key)
    assert taken.exit_code == 0, taken.output


def test_an_import_without_a_proof_creates_nothing_unless_asked_and_never_continues(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    export = tmp_path / "tomb.jsonl"
    ledger.export("gm", table, export)
    Path(f"{export}.proof.json").unlink()
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    refused = run_on(other, "import", str(export))
    assert refused.exit_code == 1
    assert "carries no checkpoint signed by a key this store trusts" in refused.stderr
    assert run_on(other, "import", str(export), "--allow-unsigned").exit_code == 0
    # A continuation of a live session: the file gains a roll but has no proof.
    ledger.ok("ann", "roll", table, "1d6", "--faces", "3")
    ledger.export("gm", table, export)
    Path(f"{export}.proof.json").unlink()
    continued = run_on(other, "import", str(export), "--allow-unsigned")
    assert continued.exit_code == 1
    assert f"continues session '{table}', which this store holds" in continued.stderr


def test_a_session_older_than_the_ledger_is_refused_until_adopted(
    ledger: Ledger, tmp_path: Path
) -> None:
    engine = make_engine(ledger.url)
    old = Application(SqlEventStore(engine), SeedVault(engine), "old", engine)
    sid = old.start_session("gm", "Before signing").session_id
    engine.dispose()
    message = ledger.refused("gm", "roll", sid, "1d6")
    assert message == (
        f"session '{sid}' holds versions 1 to 3, which this server did not append; refusing "
        "to sign; if they are genuine (recorded before this store signed its logs, or by a "
        "process that stopped before signing), an operator may sign them: "
        f"`diceledger db adopt {sid}`"
    )
    adopted = ledger.data("gm", "db", "adopt", "--all")
    assert [(a["session_id"], a["adopted"]) for a in adopted] == [(sid, 3)]
    assert ledger.ok("gm", "db", "adopt", "--all") == "every session is signed; nothing to adopt\n"
    ledger.ok("gm", "roll", sid, "1d6")


def test_no_gm_salts_a_roll_and_no_gm_chooses_a_client_seed(ledger: Ledger, table: str) -> None:
    assert ledger.refused("gm", "roll", table, "1d20", "--salt", "grind").startswith(
        "a GM's roll takes no salt"
    )
    assert ledger.refused("gm", "roll", table, "1d20", "--for", "ogre", "--salt", "x")
    assert (
        ledger.refused("gm", "session", "join", table, "--name", "cat", "--client-seed", "mine")
        == "only a player joining themself may choose a client seed"
    )
    salted = ledger.data("ann", "roll", table, "1d20", "--salt", "ann's fresh salt")
    assert salted["checkpoint"]


def test_a_checkpoint_signed_by_an_unknown_key_is_not_kept(ledger: Ledger, table: str) -> None:
    impostor = SigningKey.generate(open_keyring().current().name)
    genuine = ledger.ok("ann", "checkpoint", table)
    forged = str(impostor.sign_checkpoint(head(genuine)))
    from diceledger.cli.context import AppContext
    from diceledger.cli.witness import witness

    context = AppContext(ledger.url, "ann", False)
    try:
        assert witness(context, table, forged) is False
    finally:
        context.app().close()
    key = open_keyring().current().verifier
    assert (kept_folder() / key.key_id.hex() / f"{table}.checkpoint").read_text() == genuine


def test_kept_checkpoints_stay_checked_across_a_key_rotation(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICELEDGER_SIGNING_KEY", str(tmp_path / "rotating.key"))
    sid = ledger.data("gm", "session", "start", "Rotation")["session_id"]
    old = open_keyring().current().verifier
    ledger.ok("gm", "keys", "rotate")
    new = open_keyring().current().verifier
    ledger.ok("gm", "roll", sid, "1d6", "--faces", "2")  # signed by the new key: it extends
    for key in (old, new):
        assert (kept_folder() / key.key_id.hex() / f"{sid}.checkpoint").exists()
    shown = ledger.data("gm", "verify", sid)["checkpoints"]
    assert shown["ok"] and shown["kept"] == 2  # one kept under each key
