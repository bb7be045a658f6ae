"""``diceledger demo``: a whole session, played on a throw-away store, command by command.

Each step prints the command a person would type, then runs that very command, so the
tour shows the real CLI. The store lives in a new temporary folder (or --dir), never in
the user's own data directory. With the same --seed the dice come out the same.
"""

from __future__ import annotations

import contextlib
import io
import random
import shlex
import tempfile
import textwrap
from pathlib import Path

import click

from diceledger.cli.context import AppContext

TITLE = "The Sunken Crypt"
WIDTH = 80


class Tour:
    """Runs CLI commands against the demo store and prints them as a person would type them."""

    def __init__(self, url: str, seed: int, folder: Path) -> None:
        from diceledger.infra.bootstrap import bootstrap

        self.url = url
        # The throw-away store signs with a throw-away key, and its checkpoints are kept
        # beside it: a replayed demo is a new log, not a fork of the user's own.
        self.app = bootstrap(url, signing_key=folder / "signing.key")
        self.kept_in = folder / "checkpoints"
        rng = random.Random(seed)  # deterministic seeds: the same demo for the same --seed
        self.app.reseed(lambda: rng.randbytes(32), lambda: rng.randbytes(3).hex())
        self.session = ""

    def scene(self, title: str) -> None:
        click.echo()
        click.secho(f"== {title}", bold=True)

    def run(self, actor: str, *args: str) -> None:
        from diceledger.cli.main import cli

        shown = [a.replace(self.session, "$S") if self.session else a for a in args]
        words = ["$", "diceledger", "--as", actor, *(shlex.quote(a) for a in shown)]
        click.secho(shell_lines([w.replace("'$S'", "$S") for w in words]), dim=True)
        app = AppContext(self.url, actor, False, self.app, self.kept_in)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            cli.main(
                ["--db", self.url, "--as", actor, *args],
                prog_name="diceledger",
                standalone_mode=False,
                obj=app,
            )
        for line in printed.getvalue().splitlines():
            click.echo(fit(line))


def shell_lines(words: list[str]) -> str:
    """Join a command's words into lines of at most WIDTH, continued with a backslash."""
    lines = [words[0]]
    for word in words[1:]:
        if len(lines[-1]) + 1 + len(word) > WIDTH - 2:
            lines[-1] += " \\"
            lines.append("    " + word)
        else:
            lines[-1] += " " + word
    return "\n".join(lines)


def fit(line: str) -> str:
    """Wrap a long output line to WIDTH, continuing under its own indent."""
    if len(line) <= WIDTH:
        return line
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return textwrap.fill(
        line, WIDTH, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    )


def play(tour: Tour, folder: Path) -> None:
    """Play the scripted session."""
    tour.scene("A GM opens a session; three players join")
    tour.run("mira", "session", "start", TITLE)
    tour.session = tour.app.sessions()[-1].session_id
    click.echo(f"(the session id is {tour.session}; below it is written $S)")
    tour.run("ann", "session", "join", tour.session, "--client-seed", "ann lucky words")
    tour.run("bram", "session", "join", tour.session)
    tour.run("cara", "session", "join", tour.session)

    tour.scene("Checks: advantage and disadvantage from labelled sources, a DC, a save")
    tour.run(
        "ann",
        "check",
        tour.session,
        "1d20+3[STR]",
        "--target",
        "15",
        "--adv",
        "1:flank",
        "--adv",
        "1:high-ground",
        "--dis",
        "1:mud",
    )
    tour.run("bram", "check", tour.session, "1d20+2[DEX]", "--dc", "4:trap", "--dis", "1:dark")
    tour.run(
        "cara", "save", tour.session, "1d20+1[CON]", "--dc", "3:WIS", "--against", "ghoul touch"
    )
    tour.run(
        "ann", "check", tour.session, "1d20+4", "--target", "14", "--median", "--adv", "1:bless"
    )

    tour.scene("The GM against an NPC, physical dice typed in for both sides; it ties twice")
    tour.run(
        "mira",
        "opposed",
        tour.session,
        "1d20+1",
        "--vs",
        "ogre",
        "1d20+3",
        "--faces",
        "12,10,7,5,15,3",
        "--label",
        "arm wrestling",
    )

    tour.scene("Damage that explodes down the ladder: d8, d8, d6, d4, d4")
    tour.run(
        "cara",
        "roll",
        tour.session,
        "1d8+2",
        "--kind",
        "damage",
        "--faces",
        "8,8,6,4,4,2",
        "--label",
        "greataxe",
    )

    # Typed-in dice: seeded ones may leave no die worth rerolling (two exploded 6s, say).
    tour.scene("A damage reroll, spent on the lowest die (dice typed in)")
    tour.run(
        "ann",
        "roll",
        tour.session,
        "2d6+3",
        "--kind",
        "damage",
        "--reroll",
        "1",
        "--reroll-scope",
        "damage",
        "--faces",
        "2,5",
    )
    tour.run("ann", "reroll", tour.session, "7", "--die", "0", "--faces", "4")

    tour.scene("The GM rolls blind for the ghoul; players see only that it happened")
    tour.run(
        "mira",
        "roll",
        tour.session,
        "1d20+2",
        "--blind",
        "--for",
        "ghoul",
        "--label",
        "ghoul perception",
    )
    tour.run("ann", "session", "show", tour.session)

    tour.scene("Bram disputes his check; the GM reviews and voids it; Bram rolls again")
    tour.run("bram", "dispute", "open", tour.session, "2", "--reason", "the die hit a mini")
    tour.run("mira", "dispute", "review", tour.session, "2")
    tour.run("mira", "dispute", "resolve", tour.session, "2", "--void", "--note", "cocked die")
    tour.run(
        "bram",
        "check",
        tour.session,
        "1d20+2[DEX]",
        "--dc",
        "4:trap",
        "--dis",
        "1:dark",
        "--replaces",
        "2",
    )

    tour.scene("Each side of an opposed check rerolls in turn; what is left carries on a tie")
    tour.run(
        "bram",
        "opposed",
        tour.session,
        "1d20+1",
        "--vs",
        "cara",
        "1d20",
        "--reroll",
        "1",
        "--vs-reroll",
        "2",
        "--faces",
        "4",
    )
    # Each side types in only its own dice (R6): cara's first die is the server's.
    tour.run("bram", "reroll", tour.session, "10", "--die", "0", "--faces", "13")
    tour.run("cara", "reroll", tour.session, "10", "--die", "0", "--faces", "14")
    tour.run("cara", "accept", tour.session, "10", "--faces", "19")
    tour.run("cara", "accept", tour.session, "10")

    tour.scene("The GM reveals the seed; anyone can now check every die")
    tour.run("mira", "seed", "reveal", tour.session)
    tour.run("ann", "verify", tour.session)

    tour.scene("Ann keeps a receipt of her first check; it proves itself with no database")
    receipt = folder / "ann-roll-1.receipt.json"
    tour.run("ann", "receipt", tour.session, "1", "-o", str(receipt))
    tour.run("ann", "verify", "--receipt", str(receipt))

    tour.scene("The session as it happened, as a player sees it")
    tour.run("ann", "replay", tour.session)

    tour.scene("Statistics, and a CSV a spreadsheet opens as is")
    tour.run("mira", "stats", "--session", tour.session)
    csv_path = folder / "sunken-crypt-stats.csv"
    tour.run("mira", "stats", "--session", tour.session, "--format", "csv", "-o", str(csv_path))


@click.command("demo")
@click.option(
    "--seed",
    type=int,
    default=1,
    show_default=True,
    help="The same seed plays the same session, die for die.",
)
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False),
    help="Folder for the demo store (default: a new temporary folder).",
)
def demo(seed: int, directory: str | None) -> None:
    """Play a whole session on a throw-away SQLite store, showing each command.

    \b
    Example:
      diceledger demo --seed 7
    """
    folder = Path(directory) if directory else Path(tempfile.mkdtemp(prefix="diceledger-demo-"))
    folder.mkdir(parents=True, exist_ok=True)
    store = folder / "demo.sqlite"
    if store.exists():
        raise click.ClickException(f"{store} exists already; choose another --dir")
    url = f"sqlite:///{store}"
    click.echo(f"demo store: {store}")
    click.echo("to type the commands below yourself, first:")
    click.echo(f"  export DICELEDGER_DB={url} DICELEDGER_SIGNING_KEY={folder / 'signing.key'}")
    tour = Tour(url, seed, folder)
    play(tour, folder)
    click.echo()
    click.secho("== Explore further", bold=True)
    for line in (
        ". .venv/bin/activate    # in a new shell (in the checkout): diceledger on PATH",
        f"export DICELEDGER_DB={url} DICELEDGER_SIGNING_KEY={folder / 'signing.key'}",
        f"diceledger --as mira session show {tour.session}",
        f"diceledger --as mira dispute review {tour.session} 2",
        f"diceledger verify {tour.session} --json",
        f"diceledger export {tour.session} -o crypt.jsonl",
        "diceledger verify --file crypt.jsonl",
        'diceledger odds "1d20+3" --target 15 --adv 1',
    ):
        click.echo(f"  {line}")
