"""W11: verifying an export in the browser, against the command line's verifier.

Issue 27 asks how long the browser's own check of a session takes for the demo session and
for a session of 5,000 events. The verify page runs the command line's own Python under
Pyodide in a worker (web/static/verify-python.js). The baseline is the same export
checked by the command line's verifier in the same run (`diceledger verify --file`'s
core, ``infra.app.verification.verify_file``, in process: the interpreter's start-up is
left out of it).

The demo session is the one `diceledger serve --demo` plays, exported as its GM exports
it. The long session is one table of bench/make_store.py's generator (checks, saves,
damage with rerolls, opposed checks, blind rolls, disputes, seed reveals, through the real
decide and codec), played until it has 5,000 events and then ended so that every seed is
revealed. Both sides read the same file's text; the browser is the Debian Chromium the
tests use, headless, with the static files served on 127.0.0.1. Each side runs the check
``rounds`` times: the first run (cold: the page's modules and the JIT, the interpreter's
caches; for Pyodide also the download and start of the runtime, 13 MB from 127.0.0.1) is
given apart, and the figure is the median of the rest. Both must agree that the export
verifies, with the same counts of events and derived dice.

Run: .venv/bin/python bench/w11_browser_verify.py [--quick] [--rounds 5] [--events 5000]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.stats import median
from make_store import Generator

from diceledger.cli.serve_demo import prepare_demo
from diceledger.domain.records import RecordedEvent
from diceledger.infra.app.verification import verify_file
from diceledger.infra.bootstrap import bootstrap_server
from diceledger.infra.store.exporting import write_export, write_lines
from tests.web.browser import link_static, run_module, serve_folder, start_chromium

SEED = 27
# The verifier's module in the page, and how a page calls it.
VERIFIERS = {
    "python": ("verify-python.js", "m.verifyInBrowser(args[0])"),
}
IN_PAGE = """
const started = performance.now();
const report = await {call};
return [performance.now() - started, report.ok, report.events, report.dice_verified];
"""


def demo_export(folder: Path) -> Path:
    """Play the demo session and write its GM's export; return the file."""
    table = prepare_demo("http://127.0.0.1")
    parts = bootstrap_server(table.url)
    try:
        exported = parts.app.export("mira", table.session_id)
        path = folder / "demo.jsonl"
        write_lines(exported.lines, path)
    finally:
        parts.app.close()
    return path


def long_export(folder: Path, events: int) -> Path:
    """Play one generated table until it has ``events`` events, end it; write its export."""
    generator = Generator(SEED, datetime(2026, 1, 1, tzinfo=UTC))
    table = generator.new_table()
    records: list[RecordedEvent] = list(generator.begin(table))
    while len(records) < events - 1:
        records.extend(generator.play(table))
    records.extend(generator.finish(table))
    # The generator leaves positions to the store that would insert its rows: number them.
    placed = [replace(record, position=n) for n, record in enumerate(records, start=1)]
    path = folder / "long.jsonl"
    write_export(placed, path)
    return path


def python_runs(path: Path, rounds: int) -> tuple[list[float], dict[str, Any]]:
    seconds, report = [], None
    for _ in range(rounds):
        started = time.perf_counter()
        report = verify_file(path)
        seconds.append(time.perf_counter() - started)
    assert report is not None
    counts = {"ok": report.ok, "events": report.events, "dice_verified": report.dice_verified}
    return seconds, counts


def browser_runs(
    path: Path, rounds: int, profile: Path, verifier: str
) -> tuple[list[float], dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    module, call = VERIFIERS[verifier]
    seconds, counts = [], {}
    with tempfile.TemporaryDirectory(prefix="diceledger-w11-site-") as site:
        static = link_static(Path(site))
        with serve_folder(static) as base:
            driver = start_chromium(profile)
            try:
                driver.set_script_timeout(600)
                driver.get(base + "verify.html")
                script = IN_PAGE.replace("{call}", call)
                for _ in range(rounds):
                    elapsed_ms, ok, events, dice = run_module(driver, base + module, script, text)
                    seconds.append(elapsed_ms / 1000)
                    counts = {"ok": ok, "events": events, "dice_verified": dice}
            finally:
                driver.quit()
    return seconds, counts


def measure(name: str, path: Path, rounds: int, folder: Path) -> dict[str, Any]:
    progress(f"w11 {name}: {path.stat().st_size:,} bytes, command line")
    cli, cli_counts = python_runs(path, rounds)
    warm_cli = median(cli[1:] or cli)
    figures: dict[str, Any] = {
        **cli_counts,
        "bytes": path.stat().st_size,
        "cli_cold_ms": round(cli[0] * 1000, 1),
        "cli_ms": round(warm_cli * 1000, 1),
    }
    for verifier in VERIFIERS:
        progress(f"w11 {name}: browser, {verifier}")
        profile = folder / f"profile-{name}-{verifier}"
        page, page_counts = browser_runs(path, rounds, profile, verifier)
        if page_counts != cli_counts:
            raise SystemExit(
                f"w11 {name} ({verifier}): the verdicts differ: {page_counts} against {cli_counts}"
            )
        warm_page = median(page[1:] or page)
        figures[f"browser_{verifier}_cold_ms"] = round(page[0] * 1000, 1)
        figures[f"browser_{verifier}_ms"] = round(warm_page * 1000, 1)
        figures[f"browser_{verifier}_per_cli"] = round(warm_page / warm_cli, 2)
    return figures


def more_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--events", type=int, help="events of the long session (5000)")


def main() -> None:
    options = parse_options(__doc__.splitlines()[0], more_options)
    rounds = options.rounds or (2 if options.quick else 5)
    events = options.events or (500 if options.quick else 5000)
    if events > 100_000 or rounds > 50:
        raise SystemExit("w11: at most 100,000 events and 50 rounds")
    folder = Path(tempfile.mkdtemp(prefix="diceledger-w11-"))
    exports = {"demo": demo_export(folder), "long": long_export(folder, events)}
    results = {name: measure(name, path, rounds, folder) for name, path in exports.items()}
    emit("w11_browser_verify", options.quick, machine=describe(), rounds=rounds, results=results)
    progress(json.dumps(results))


if __name__ == "__main__":
    main()
