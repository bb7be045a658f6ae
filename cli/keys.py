"""``diceledger keys``: list the server's signing keys, and rotate to a new one."""

from __future__ import annotations

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.output import emit_json


@click.group("keys")
def keys() -> None:
    """List the signing keys of this store's server, or rotate to a new key."""


@keys.command("list")
@json_option
@pass_app
def list_keys(app: AppContext) -> None:
    """List the verifier keys: the one signing now, and each retired one.

    A retired key shows the key that succeeded it; its signed word for that key travels
    with `GET /api/v1/keys`.

    \b
    Example:
      diceledger keys list --json
    """
    found = app.app().proofs.keys()
    successors = {rotation.retired.key: rotation.successor for rotation in found.rotations}
    if app.json:
        emit_json(
            {
                "current": str(found.current),
                "retired": [
                    {
                        "verifier_key": str(key),
                        "successor": None if key not in successors else str(successors[key]),
                    }
                    for key in found.retired
                ],
            }
        )
        return
    click.echo(f"current: {found.current}")
    for key in found.retired:
        after = successors.get(key)
        click.echo(f"retired: {key}" + ("" if after is None else f" (then {after.key_id.hex()})"))


@keys.command("rotate")
@json_option
@pass_app
def rotate(app: AppContext) -> None:
    """Retire the signing key and sign with a new one from now on (stop the server first).

    The old public key stays published and keeps vouching for each session's checkpoints
    up to the size it had signed at this moment, never for more; the old key signs a note
    vouching for the new one.

    \b
    Example:
      diceledger keys rotate
    """
    rotation = app.app().proofs.rotate_key()
    if app.json:
        emit_json(
            {
                "retired": str(rotation.retired.key),
                "current": str(rotation.successor),
                "sessions": len(rotation.retired.sizes),
                "endorsement": rotation.endorsement,
            }
        )
        return
    click.echo(f"retired: {rotation.retired.key}")
    click.echo(f"current: {rotation.successor}")
    click.echo(
        f"the retired key vouches for {len(rotation.retired.sizes)} sessions up to their "
        "signed size now; restart the server so it signs with the new key"
    )
