"""Every shell block of the README and every example of every ``--help`` runs as written.

Each runs in bash (``-euo pipefail``) in a fresh temporary home: HOME, the XDG folders and
TMPDIR point into the test's folder and no DICELEDGER_* setting is inherited, so the
default store, keys and kept checkpoints are new. Every README block runs after the
set-up line the README names first (`. .venv/bin/activate`, from the checkout). Every
command's examples run after the examples of ``diceledger --help``, which say they are
the set-up the others start from (a session ``$S`` with a GM and two players): the set-up
runs once, and each command's examples run in a copy of the home it left. No text
announces a failing example, so any non-zero exit fails.

A line that starts a server (``serve``) does not return by itself: it runs alone, bounded,
until its port answers, then gets SIGINT as a person's Ctrl-C and must exit 0 (and a
``--demo`` server must leave no store behind). Its port comes from DICELEDGER_PORT, so
``diceledger serve`` runs as written without taking a port another run holds.

``make test`` is the one line not run: it runs the suite this test belongs to. ``discord
register`` talks to Discord's API: here to a fake of it on 127.0.0.1 (DICELEDGER_DISCORD_API_URL).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from diceledger.cli.main import cli
from tests.api.served import running_server
from tests.cli.remote_support import Table
from tests.discord.fake_api import fake_discord_api

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SET_UP = ". .venv/bin/activate"
NOT_RUN = {"make test": "it runs the whole suite, this test included"}
COMMAND_SECONDS = 120
SERVER_SECONDS = 60


def readme_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", README.read_text(), flags=re.S)


def command_of(line: str) -> str:
    """Return a shell line without its comment."""
    return line.split("#")[0].strip()


def help_examples(command: click.Command) -> list[str]:
    """Return the lines under "Example:" or "Examples:" of a command's help text."""
    lines = (command.help or "").splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() in ("Example:", "Examples:")]
    found: list[str] = []
    for start in starts:
        for line in lines[start + 1 :]:
            if not line.strip():
                break
            found.append(line.strip())
    return found


def every_command() -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []

    def walk(command: click.Command, path: str) -> None:
        found.append((path, command))
        if isinstance(command, click.Group):
            ctx = click.Context(command, info_name=path)
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None, name
                walk(sub, f"{path} {name}")

    walk(cli, "diceledger")
    return found


def starts_a_server(line: str) -> bool:
    return re.search(r"\bdiceledger\b(\s+--?\S+(\s+[^-\s]\S*)?)*\s+serve\b", line) is not None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class Home:
    """A fresh home for one run: its folder, its environment, and where it runs."""

    folder: Path
    env: dict[str, str]

    @classmethod
    def fresh(cls, folder: Path, *, on_path: bool = True) -> Home:
        folder.mkdir(parents=True)
        # A new shell: none of our settings, and none of a make that may be running the
        # suite (a nested make prints "Leaving directory" after the text's last line).
        inherited = ("DICELEDGER_", "MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")
        env = {k: v for k, v in os.environ.items() if not k.startswith(inherited)}
        env.pop("VIRTUAL_ENV", None)
        names = {
            "HOME": "home",
            "XDG_DATA_HOME": "home/.local/share",
            "XDG_CONFIG_HOME": "home/.config",
            "XDG_STATE_HOME": "home/.local/state",
            "XDG_CACHE_HOME": "home/.cache",
            "TMPDIR": "tmp",
        }
        for name, below in names.items():
            (folder / below).mkdir(parents=True, exist_ok=True)
            env[name] = str(folder / below)
        (folder / "work").mkdir()
        # The help's examples take the command as reached; the README says how to reach it,
        # so for the README the test's own venv is taken off PATH, as in a new shell.
        ours = str(Path(sys.executable).parent)
        others = [entry for entry in env["PATH"].split(os.pathsep) if entry != ours]
        env["PATH"] = os.pathsep.join([ours, *others] if on_path else others)
        env["NO_COLOR"] = "1"
        env["DICELEDGER_PORT"] = str(free_port())
        return cls(folder, env)

    @property
    def work(self) -> Path:
        return self.folder / "work"

    def copy(self, folder: Path) -> Home:
        """Return a copy of this home (its files as they are now) in ``folder``."""
        shutil.copytree(self.folder, folder, symlinks=True)
        moved = {k: v.replace(str(self.folder), str(folder)) for k, v in self.env.items()}
        moved["DICELEDGER_PORT"] = str(free_port())
        return Home(folder, moved)

    def run(self, script: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=COMMAND_SECONDS,
        )

    def serve(self, script: str) -> tuple[int, str]:
        """Start a server line, wait for its port, stop it with SIGINT; return exit and output."""
        port = int(self.env["DICELEDGER_PORT"])
        log = self.folder / "server.log"
        with log.open("w") as out:
            server = subprocess.Popen(
                ["bash", "-euo", "pipefail", "-c", script],
                cwd=self.work,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                deadline = time.monotonic() + SERVER_SECONDS
                while not answers(port) and server.poll() is None:
                    assert time.monotonic() < deadline, log.read_text()
                    time.sleep(0.2)
                os.killpg(server.pid, signal.SIGINT)
                code = server.wait(timeout=SERVER_SECONDS)
            finally:
                if server.poll() is None:
                    os.killpg(server.pid, signal.SIGKILL)
                    server.wait()
        return code, log.read_text()


def answers(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def run_lines(home: Home, prefix: list[str], lines: list[str]) -> str:
    """Run ``lines`` after ``prefix``; a server line alone, bounded. Return the output."""
    servers = [line for line in lines if starts_a_server(line)]
    if not servers:
        result = home.run("\n".join([*prefix, *lines]))
        assert result.returncode == 0, f"{lines}\n{result.stdout}\n{result.stderr}"
        return result.stdout
    assert servers == lines, f"a block that starts a server holds nothing else: {lines}"
    printed = []
    for line in servers:
        code, output = home.serve("\n".join([*prefix, line]))
        assert code == 0, f"{line}\n{output}"
        leftover = list(Path(home.env["TMPDIR"]).glob("diceledger-serve-demo-*"))
        assert leftover == [], f"{line} left its throw-away store: {leftover}"
        printed.append(output)
    return "\n".join(printed)


def setup_lines() -> list[str]:
    return help_examples(cli)


@pytest.fixture(scope="module")
def set_up_home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    """A home in which the set-up of the examples (``diceledger --help``'s) has run."""
    home = Home.fresh(tmp_path_factory.mktemp("examples") / "set-up")
    lines = setup_lines()
    assert any(line.startswith("S=") for line in lines), "the set-up names the session $S"
    result = home.run("\n".join([*lines, 'echo "$S" > "$HOME/session-id"']))
    assert result.returncode == 0, result.stderr
    return home


def test_the_help_says_the_examples_start_from_its_own() -> None:
    assert "every command's examples start from these" in (cli.help or "").lower()


def test_every_command_with_no_subcommands_has_examples() -> None:
    for path, command in every_command():
        if not isinstance(command, click.Group):
            assert help_examples(command), f"{path} --help has no example"


def example_commands() -> list[tuple[str, click.Command]]:
    return [(path, command) for path, command in every_command() if help_examples(command)]


@pytest.mark.parametrize(
    ("path", "command"), example_commands()[1:], ids=[p for p, _ in example_commands()[1:]]
)
def test_the_examples_of_a_command_run_as_written(
    path: str, command: click.Command, set_up_home: Home, tmp_path: Path
) -> None:
    home = set_up_home.copy(tmp_path / "home")
    session = (home.folder / "home" / "session-id").read_text().strip()
    prefix = [f"S={session}"]
    with fake_discord_api() as discord, ExitStack() as stack:
        # `discord register` talks to Discord: here to a fake of its API, on this machine.
        discord.answer = [{"id": "1", "name": "dl"}]
        home.env["DICELEDGER_DISCORD_API_URL"] = discord.url
        if path == "diceledger join":
            # `join` takes the invite link a GM shared: here one of a real server's sessions.
            served = tmp_path / "served"
            served.mkdir()
            server = stack.enter_context(
                running_server(f"sqlite:///{served / 'table.sqlite'}", served)
            )
            prefix.append(f"INVITE={Table.open(server.base_url).invite_link()}")
        run_lines(home, prefix, help_examples(command))


@pytest.mark.skipif(
    not (ROOT / ".venv" / "bin" / "activate").exists(), reason="no .venv in the checkout"
)
@pytest.mark.parametrize("index", range(len(readme_blocks())))
def test_every_readme_block_runs_as_written(index: int, tmp_path: Path) -> None:
    home = Home.fresh(tmp_path / "home", on_path=False)
    # The set-up line is the checkout's; the commands then run in the fresh home.
    prefix = [f"cd {ROOT}", SET_UP, f"cd {home.work}"]
    lines = [
        line
        for line in readme_blocks()[index].splitlines()
        if command_of(line) not in (*NOT_RUN, SET_UP)
    ]
    if lines and lines[0].startswith("make "):
        prefix = [f"cd {ROOT}"]  # make runs in the checkout, as the README says
    output = run_lines(home, prefix, lines)
    if "make demo" in map(command_of, lines):
        assert output.rstrip().splitlines()[-1].strip().startswith(SET_UP)
    if any(line.startswith("diceledger verify") for line in lines):
        assert "ann check: 1d20" in output
        assert "verified: the chain" in output
        assert (home.work / "table.sqlite").exists()
