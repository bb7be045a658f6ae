"""``diceledger projections``: rebuild the persisted projections, show their checkpoints."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from cli.context import AppContext, json_option, pass_app
from cli.output import emit_json

# Catching up more events than this shows a progress bar.
PROGRESS_THRESHOLD = 20_000


@click.group("projections")
def projections() -> None:
    """Rebuild the persisted projections and show how far they have read."""


@projections.command("rebuild")
@json_option
@pass_app
def rebuild(app: AppContext) -> None:
    """Rebuild the statistics from position 0, in batches, with a progress bar.

    \b
    Example:
      diceledger projections rebuild
    """
    import time

    projection = _projection(app)
    head = projection.status().head
    started = time.perf_counter()
    with _bar(head, "rebuilding statistics", app.json) as advance:
        folded = projection.rebuild(advance)
    seconds = time.perf_counter() - started
    status = projection.status()
    if app.json:
        emit_json({**_status_json(status), "folded": folded, "seconds": round(seconds, 3)})
        return
    click.echo(
        f"statistics rebuilt: {folded:,} events in {seconds:.1f} s, checkpoint {status.checkpoint}"
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
    current = _projection(app).status()
    if app.json:
        emit_json([_status_json(current)])
        return
    state = "up to date" if current.behind == 0 else f"{current.behind:,} positions behind"
    click.echo(
        f"{current.name}: checkpoint {current.checkpoint:,} of head {current.head:,} ({state})"
    )


def caught_up(app: AppContext) -> Any:
    """Return the statistics projection after folding what it has not read yet."""
    projection = _projection(app)
    behind = projection.status().behind
    with _bar(behind, "updating statistics", app.json or behind < PROGRESS_THRESHOLD) as advance:
        projection.catch_up(advance)
    return projection


def _projection(app: AppContext) -> Any:
    from infra.projections.wiring import statistics_projection

    return statistics_projection(app.services())


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
