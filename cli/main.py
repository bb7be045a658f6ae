"""The ``diceledger`` entry point: global options and one-line errors."""

from __future__ import annotations

import click

from diceledger.cli.context import AppContext, default_actor
from diceledger.cli.errors import message_for
from diceledger.cli.lazy import LazyGroup
from diceledger.cli.output import shown
from diceledger.domain import __version__
from diceledger.domain.errors import DiceledgerError

# An error may quote what was typed, which may be a 100 KB string; a line stays readable.
MAX_ERROR = 1000


def _error(message: str) -> click.ClickException:
    text = shown(message)
    if len(text) > MAX_ERROR:
        text = f"{text[:MAX_ERROR]}... ({len(text) - MAX_ERROR:,} more characters)"
    return click.ClickException(text)


class DiceledgerGroup(LazyGroup):
    """Turn every DiceledgerError, and a file that cannot be used, into one line, exit 1."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except DiceledgerError as error:
            raise _error(message_for(error)) from None
        except OSError as error:
            # A file named on the command line (an export, a CSV, an import) that cannot
            # be opened or written; the store itself reports through DiceledgerError.
            where = f" {error.filename}" if error.filename else ""
            raise _error(f"cannot use{where}: {error.strerror or error}") from None


@click.group(cls=DiceledgerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="diceledger")
@click.option(
    "--db",
    "db_url",
    envvar="DICELEDGER_DB",
    metavar="URL",
    help="Database URL (default: a SQLite file in your data directory; env DICELEDGER_DB).",
)
@click.option(
    "--as",
    "actor",
    metavar="NAME",
    default=default_actor,
    help="Who is acting (env DICELEDGER_USER, else your OS user name).",
)
@click.option("--json", "as_json", is_flag=True, help="Print results as JSON.")
@click.option(
    "--server",
    envvar="DICELEDGER_SERVER",
    metavar="URL",
    help="Be a client of this server: session commands use the token `join` kept "
    "(env DICELEDGER_SERVER).",
)
@click.pass_context
def cli(
    ctx: click.Context, db_url: str | None, actor: str, as_json: bool, server: str | None
) -> None:
    """Record dice rolls of a tabletop session as a verifiable event log.

    The options below (--db, --as, --json) go before the command: `diceledger --as ann
    check ...`. Every command's examples start from these: a session $S with the GM gm
    and the players ann and bob.

    \b
    Examples:
      S=$(diceledger --as gm session start "Tomb of Ash" --json |
          python3 -c 'import json,sys; print(json.load(sys.stdin)["session_id"])')
      diceledger --as ann session join "$S"
      diceledger --as bob session join "$S"
    """
    # A caller that built the application already (the demo) hands it in through obj.
    given = ctx.obj if isinstance(ctx.obj, AppContext) else None
    built = given.app() if given else None
    kept_in = given.kept_in if given else None
    origin = None
    if server:
        from diceledger.cli.tokens import origin_of

        origin = origin_of(server)
    ctx.obj = AppContext(
        db_url=db_url, actor=actor, json=as_json, _app=built, kept_in=kept_in, server=origin
    )


def main() -> None:
    """Run the command line."""
    cli(prog_name="diceledger")


if __name__ == "__main__":
    main()
