"""``diceledger serve``: run the session service over HTTP with uvicorn."""

from __future__ import annotations

import os

import click

from diceledger.cli.context import AppContext, pass_app
from diceledger.cli.options import WholeNumber

# One line per request comes from the app's own access log (method, path, status, ms):
# uvicorn's would print query strings, and the app's never prints a header.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "line": {"format": "%(asctime)s %(levelname)s %(name)s [%(process)d]: %(message)s"}
    },
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "line"}},
    "loggers": {
        "uvicorn.error": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
        "diceledger": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
    },
}


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    default=8000,
    show_default=True,
    type=WholeNumber(0, 65535),
    envvar="DICELEDGER_PORT",
    help="Port to listen on (env DICELEDGER_PORT).",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=WholeNumber(1, 64),
    help="Worker processes (PostgreSQL only; SQLite has one writer).",
)
@click.option(
    "--demo",
    is_flag=True,
    help="Serve a throw-away store with a session already played, and print links to open.",
)
@click.option(
    "--origin",
    envvar="DICELEDGER_ORIGIN",
    help="The server's public origin (https://dice.example.org): names the signing key "
    "it creates, else a random install id does.",
)
@click.option(
    "--db",
    "db_url",
    metavar="URL",
    help="Database URL to serve (as `diceledger --db URL serve`; this one wins over the env).",
)
@pass_app
def serve(
    app: AppContext,
    host: str,
    port: int,
    workers: int,
    demo: bool,
    origin: str | None,
    db_url: str | None,
) -> None:
    """Serve the session API on HTTP: each person acts as themselves, by token.

    The store and the seeds stay with the server; players need no database access.
    Stop it with Ctrl-C or SIGTERM. docs/api.md lists the routes, docs/deploy.md shows
    PostgreSQL with several workers behind a reverse proxy with TLS (`diceledger --db
    postgresql+psycopg://app@db/club serve --host 0.0.0.0 --workers 4`).

    \b
    Examples:
      diceledger serve --demo
      diceledger serve
    """
    if origin:
        os.environ["DICELEDGER_ORIGIN"] = origin  # the worker that creates the key names it
    if db_url is not None:
        _serve_store(app, db_url, demo)
    if demo:
        if port == 0:
            raise click.UsageError("the demo's links name a port: give --port N (not 0)")
        if workers > 1:
            raise click.UsageError("the demo's store is SQLite, with one writer: --workers 1")
        from diceledger.cli.serve_demo import describe, prepare_demo, removed_on_exit

        table = prepare_demo(f"http://{_browser_host(host)}:{port}")
        with removed_on_exit(table.folder):
            for line in describe(table):
                click.echo(line)
            _run(host, port, workers, table.url, table.url)
        return
    url = app.app().url_for_workers()  # opens the store: upgrades SQLite, checks PostgreSQL
    if workers > 1 and url.startswith("sqlite"):
        raise click.UsageError(
            "SQLite has one writer: serve it with --workers 1, or use PostgreSQL"
        )
    _run(host, port, workers, url, app.app().url)


def _run(host: str, port: int, workers: int, url: str, shown: str) -> None:
    """Serve ``url`` with uvicorn until stopped; ``shown`` is the URL as printed."""
    import uvicorn

    from diceledger.cli.serve_protocol import NoDelayH11Protocol

    os.environ["DICELEDGER_DB"] = url  # every worker process builds the app on this store
    click.echo(f"serving {shown} on http://{host}:{port} with {workers} worker(s)", err=True)
    uvicorn.run(
        "diceledger.web.asgi:create",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        http=NoDelayH11Protocol,  # several workers would otherwise answer 40 ms late
        log_config=LOGGING,
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=5,
    )


def _serve_store(app: AppContext, db_url: str, demo: bool) -> None:
    """Take ``serve --db URL``: the same store as the group's --db, which it may repeat."""
    if demo:
        raise click.UsageError(
            "--demo serves a throw-away store of its own: --demo or --db, not both"
        )
    group = click.get_current_context().find_root()
    given_before = group.get_parameter_source("db_url") is click.core.ParameterSource.COMMANDLINE
    if given_before and app.db_url != db_url:
        raise click.UsageError(
            "--db is given before and after serve, with different URLs: give it once"
        )
    app.db_url = db_url  # over DICELEDGER_DB, as an option given on the command line is


def _browser_host(host: str) -> str:
    """Return the host a browser on this machine opens for a server listening on ``host``."""
    return "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
