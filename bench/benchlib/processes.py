"""Run commands as fresh processes the way a user's shell runs them, and time them."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path


def user_environment(folder: Path, url: str) -> dict[str, str]:
    """Return an environment for commands on the store at ``url``, kept inside ``folder``.

    Compiled bytecode is cached (in ``folder``), as it is for an installed package: a
    caller's PYTHONDONTWRITEBYTECODE would otherwise make every diceledger process compile
    its modules again, while the baseline's SQLAlchemy ships compiled in site-packages.
    The user data directory (signing key, seed key, kept checkpoints) is in ``folder``
    too, so a run never touches the real one. The first run of each command writes the
    cache; time only after a warm-up round.
    """
    skipped = {"PYTHONDONTWRITEBYTECODE", "DICELEDGER_USER"}
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in skipped and not name.startswith("DICELEDGER_")
    }
    return {
        **env,
        "PYTHONPYCACHEPREFIX": str(folder / "pycache"),
        "XDG_DATA_HOME": str(folder / "data"),
        "DICELEDGER_DB": url,
        "NO_COLOR": "1",
    }


def timed(command: list[str], env: dict[str, str]) -> float:
    """Run ``command`` to completion (it must succeed); return its wall time in seconds."""
    return timed_with_cpu(command, env)[0]


def timed_with_cpu(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run ``command`` to completion (it must succeed); return its wall and CPU seconds.

    CPU is the child's user + system time: on a loaded machine it moves less than the wall
    time, which also counts the waits for a core.
    """
    before = _children_cpu()
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    return wall, _children_cpu() - before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def tree_cpu_seconds(pid: int) -> float:
    """Return the user + system CPU seconds so far of ``pid`` and its live descendants.

    Read from /proc (Linux), so that a server's workers count while they run: the
    rusage of children is only known once they have exited and been waited for.
    """
    parents: dict[int, int] = {}
    spent: dict[int, float] = {}
    ticks = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # the process ended while we looked
        # The command name is in parentheses and may hold spaces: split after it.
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
        spent[int(entry.name)] = (int(fields[11]) + int(fields[12])) / ticks
    tree = {pid}
    grown = True
    while grown:
        found = {child for child, parent in parents.items() if parent in tree} - tree
        tree |= found
        grown = bool(found)
    return sum(spent.get(member, 0.0) for member in tree)
