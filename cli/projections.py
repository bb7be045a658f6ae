"""``diceledger projections``: rebuild the persisted projections, show their checkpoints."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.output import emit_json

# Catching up more events than this shows a progress bar.
PROGRESS_THRESHOLD = 20_000


@click.group("projections")
def projections() -> None:
    """Rebuild the persisted projections and show how far they have read."""


@projections.command("rebuild")
@json_option
@pass_app
def rebuild(app: AppContext) -> None:
    """Rebuild every projection (statistics, session directory) from position 0.

    Each is rebuilt in batches, with a progress bar; the events are never touched.

    \b
    Example:
      diceledger projections rebuild
    """
    import time

    results = []
    for label, projection in _projections(app):
        head = projection.status().head
        started = time.perf_counter()
        with _bar(head, f"rebuilding {label}", app.json) as advance:
            folded = projection.rebuild(advance)
        seconds = time.perf_counter() - started
        status = projection.status()
        results.append({**_status_json(status), "folded": folded, "seconds": round(seconds, 3)})
        if not app.json:
            click.echo(
                f"{label} rebuilt: {folded:,} events in {seconds:.1f} s, "
                f"checkpoint {status.checkpoint}"
            )
    if app.json:
        emit_json(results)


@projections.command("status")
@json_option
@pass_app
def status(app: AppContext) -> None:
    """Show each projection's checkpoint against the store's head.

    \b
    Example:
      diceledger projections status
    """
    statuses = [projection.status() for _, projection in _projections(app)]
    if app.json:
        emit_json([_status_json(current) for current in statuses])
        return
    for current in statuses:
        state = "up to date" if current.behind == 0 else f"{current.behind:,} positions behind"
        click.echo(
            f"{current.name}: checkpoint {current.checkpoint:,} of head {current.head:,} ({state})"
        )


def caught_up(app: AppContext) -> Any:
    """Return the statistics projection after folding what it has not read yet."""
    from diceledger.infra.projections.wiring import statistics_projection

    return _caught_up(statistics_projection(app.services()), "statistics", app.json)


def directory_caught_up(app: AppContext) -> Any:
    """Return the session directory after folding what it has not read yet."""
    from diceledger.infra.projections.wiring import session_directory

    return _caught_up(session_directory(app.services()), "session directory", app.json)


def _caught_up(projection: Any, label: str, quiet: bool) -> Any:
    behind = projection.status().behind
    with _bar(behind, f"updating {label}", quiet or behind < PROGRESS_THRESHOLD) as advance:
        projection.catch_up(advance)
    return projection


def _projections(app: AppContext) -> list[tuple[str, Any]]:
    from diceledger.infra.projections.wiring import session_directory, statistics_projection

    services = app.services()
    return [
        ("statistics", statistics_projection(services)),
        ("session directory", session_directory(services)),
    ]


def _status_json(status: Any) -> dict[str, Any]:
    return {
        "name": status.name,
        "checkpoint": status.checkpoint,
        "head": status.head,
        "behind": status.behind,
    }


@contextmanager
def _bar(length: int, label: str, quiet: bool) -> Iterator[Callable[[int], None] | None]:
    """Show a click progress bar on stderr unless quiet; yield its advance callback."""
    if quiet:
        yield None
        return
    with click.progressbar(length=max(length, 1), label=label, file=sys.stderr) as bar:
        yield bar.update
