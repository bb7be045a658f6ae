"""Keep each checkpoint a command answers with, after checking it extends the kept one.

The CLI keeps the latest checkpoint of every session it sees (``infra.app.keeping``). Each new
one must be signed by a trusted key and extend the kept one by a consistency proof the
store gives; when it does not, the command says so loudly on stderr and the kept
checkpoint stays as evidence.
"""

from __future__ import annotations

from typing import Any

import click

from diceledger.cli.context import AppContext
from diceledger.domain.errors import MalformedError, VerificationError
from diceledger.domain.signed_note import VerifierKey


def witness(app: AppContext, session_id: str, note: str | None) -> bool:
    """Check and keep ``note``, the checkpoint an answer carried; warn and return False if bad."""
    if note is None:
        return True
    try:
        remote = app.remote()
        if remote is None:
            app.keeper().witness(app.app(), session_id, note)
        else:
            app.keeper().witness_given(
                note, remote.keys(), lambda old, new: remote.consistency(session_id, old, new)
            )
    except VerificationError as error:
        warn(str(error))
        warn("the checkpoint kept before stays as it was: keep it as evidence")
        return False
    return True


def warn(message: str) -> None:
    """Print a warning nobody should miss, on stderr."""
    click.secho(f"WARNING: {message}", err=True, fg="red", bold=True)


class VerifierKeyType(click.ParamType):
    """``name+keyid+base64``: a server's verifier key, as ``GET /api/v1/keys`` shows it."""

    name = "KEY"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> VerifierKey:
        if isinstance(value, VerifierKey):
            return value
        try:
            return VerifierKey.parse(str(value))
        except MalformedError as error:
            self.fail(str(error), param, ctx)


TRUST_KEY = click.option(
    "--trust-key",
    "trusted",
    type=VerifierKeyType(),
    multiple=True,
    help="Trust checkpoints signed by this verifier key (repeatable): name+keyid+base64.",
)
