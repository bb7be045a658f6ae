"""``diceledger projections``: rebuild the persisted projections, show their checkpoints."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.output import emit_json
from diceledger.infra.app.results import ProjectionStatus

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
    results = app.app().rebuild_projections(
        lambda name, events: _bar(events, f"rebuilding {name}", app.json)
    )
    if app.json:
        emit_json([_status_json(result, rebuilt=True) for result in results])
        return
    for result in results:
        click.echo(
            f"{result.label} rebuilt: {result.folded:,} events in {result.seconds:.1f} s, "
            f"checkpoint {result.checkpoint}"
        )


@projections.command("status")
@json_option
@pass_app
def status(app: AppContext) -> None:
    """Show each projection's checkpoint against the store's head.

    \b
    Example:
      diceledger projections status
    """
    statuses = app.app().projections()
    if app.json:
        emit_json([_status_json(current) for current in statuses])
        return
    for current in statuses:
        state = "up to date" if current.behind == 0 else f"{current.behind:,} positions behind"
        click.echo(
            f"{current.name}: checkpoint {current.checkpoint:,} of head {current.head:,} ({state})"
        )


def catching_up(
    behind: int, label: str, quiet: bool
) -> AbstractContextManager[Callable[[int], None] | None]:
    """Return a progress bar for bringing a projection ``behind`` events up to date."""
    return _bar(behind, f"updating {label}", quiet or behind < PROGRESS_THRESHOLD)


def _status_json(status: ProjectionStatus, rebuilt: bool = False) -> dict[str, str | int | float]:
    document: dict[str, str | int | float] = {
        "name": status.name,
        "checkpoint": status.checkpoint,
        "head": status.head,
        "behind": status.behind,
    }
    if rebuilt:
        document |= {"folded": status.folded, "seconds": status.seconds}
    return document


@contextmanager
def _bar(length: int, label: str, quiet: bool) -> Iterator[Callable[[int], None] | None]:
    """Show a click progress bar on stderr unless quiet; yield its advance callback."""
    if quiet:
        yield None
        return
    with click.progressbar(length=max(length, 1), label=label, file=sys.stderr) as bar:
        yield bar.update
