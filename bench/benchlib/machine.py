"""Describe the machine a run happened on, for docs/performance.md."""

from __future__ import annotations

import os
import platform
import sqlite3
import subprocess
from datetime import UTC, datetime
from typing import Any


def cpu_model() -> str:
    """Return the CPU model name from /proc/cpuinfo (or the platform's guess)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def code_version() -> str:
    """Return the commit measured, marked dirty when domain/ or infra/ have local edits."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        edits = subprocess.run(
            ["git", "status", "--porcelain", "--", "domain", "infra"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{commit}+dirty" if edits else commit


def describe() -> dict[str, Any]:
    """Return when and where this run happened, and which code it measured."""
    return {
        "utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "code": code_version(),
        "nproc": os.cpu_count(),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
    }
