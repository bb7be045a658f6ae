"""Where the pages' scripts and styles are: beside this module, in a checkout or a wheel."""

from __future__ import annotations

from pathlib import Path

# A folder on disk, not importlib.resources: an editable install has no single folder
# for the package, and a server needs a real directory to serve files from.
STATIC_DIR = Path(__file__).resolve().parent / "static"
