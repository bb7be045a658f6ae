"""What every command receives: the global options and, on demand, the application."""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from diceledger.cli.calls import SessionCalls
    from diceledger.cli.remote_calls import RemoteCalls
    from diceledger.infra.app.application import Application
    from diceledger.infra.app.keeping import KeptCheckpoints


def default_actor() -> str:
    """Return the acting name: DICELEDGER_USER, else the OS user."""
    return os.environ.get("DICELEDGER_USER") or getpass.getuser()


@dataclass
class AppContext:
    """Global options, and the application built from them the first time it is needed."""

    db_url: str | None
    actor: str
    json: bool
    _app: Application | None = field(default=None, repr=False)
    kept_in: Path | None = None  # where checkpoints are kept (default: the user's data)
    server: str | None = None  # the origin of the server session commands are clients of

    def app(self) -> Application:
        """Build the application once (imports the store only when a command needs it)."""
        if self.server is not None and self._app is None:
            # Never answer from a local store a question asked of a server.
            raise click.UsageError(
                f"this command does not work with --server yet (server: {self.server})"
            )
        if self._app is None:
            from diceledger.infra.bootstrap import bootstrap

            self._app = bootstrap(self.db_url)
        return self._app

    def remote(self) -> RemoteCalls | None:
        """Return the server's calls when --server names one, else None (the local store)."""
        if self.server is None:
            return None
        from diceledger.cli.remote import Server
        from diceledger.cli.remote_calls import RemoteCalls

        return RemoteCalls(Server(self.server))

    def calls(self) -> SessionCalls:
        """Return who answers the session commands: the server of --server, else the store."""
        remote = self.remote()
        if remote is not None:
            return remote
        from diceledger.cli.calls import LocalCalls

        return LocalCalls(self.app(), self.actor)

    def keeper(self) -> KeptCheckpoints:
        """Return where this user keeps the checkpoints commands answer with."""
        from diceledger.infra.app.keeping import KeptCheckpoints

        return KeptCheckpoints(self.kept_in)


pass_app = click.make_pass_decorator(AppContext)


def _json_requested(ctx: click.Context, _: click.Parameter, value: bool) -> None:
    app = ctx.find_object(AppContext)
    if value and app is not None:
        app.json = True


json_option = click.option(
    "--json",
    is_flag=True,
    expose_value=False,
    callback=_json_requested,
    help="Print the result as JSON (also accepted before the command).",
)
