"""Secret key files kept outside the database: where they live, and how they are made.

A key file is created once, readable by its owner only (0600), in the user's data
directory beside the default SQLite file, unless an environment variable names its path.
Creation is atomic: the file appears complete or not at all, and when several processes
start at once exactly one key wins and every process reads that one.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path

import platformdirs

from diceledger.domain.errors import KeyFileError

OWNER_ONLY = 0o600
PRIVATE_DIRECTORY = 0o700


def key_path(env_var: str, file_name: str) -> Path:
    """Return the path named by ``env_var``, else ``file_name`` in the user data directory."""
    from_env = os.environ.get(env_var)
    if from_env:
        return Path(from_env).expanduser()
    return Path(platformdirs.user_data_dir("diceledger")) / file_name


def read_key_file(path: Path) -> str:
    """Return a key file's text; refuse one that other users may read or write."""
    try:
        mode = path.stat().st_mode
        if mode & 0o077:
            raise KeyFileError(
                f"key file {path} is open to other users (mode {mode & 0o777:o}); "
                f"run `chmod 600 {path}`"
            )
        return path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as error:
        raise KeyFileError(f"cannot read key file {path}: {_reason(error)}") from None


def write_key_file(path: Path, text: str, replace: bool = False) -> bool:
    """Write a new key file readable by its owner only; return False if one already exists.

    The text goes to a private temporary file first, which is then linked into place (or,
    with ``replace``, renamed over the old file), so no reader sees a partial key.
    """
    try:
        path.parent.mkdir(mode=PRIVATE_DIRECTORY, parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{secrets.token_hex(8)}.partial")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, OWNER_ONLY)
        try:
            with os.fdopen(descriptor, "w", encoding="ascii") as file:
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            if replace:
                os.replace(partial, path)
                return True
            try:
                os.link(partial, path)
            except FileExistsError:
                return False
            return True
        finally:
            partial.unlink(missing_ok=True)
    except OSError as error:
        raise KeyFileError(f"cannot write key file {path}: {_reason(error)}") from None


def load_or_create(path: Path, make: Callable[[], str]) -> str:
    """Return the key file's text, creating it from ``make()`` on first use."""
    if not path.exists():
        write_key_file(path, make())  # a racing process may win; then its key is read
    return read_key_file(path)


def _reason(error: Exception) -> str:
    return getattr(error, "strerror", None) or str(error)
