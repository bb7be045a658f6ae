"""Where the pages' scripts and styles are: beside this module, in a checkout or a wheel."""

from __future__ import annotations

import mimetypes
from pathlib import Path

# A folder on disk, not importlib.resources: an editable install has no single folder
# for the package, and a server needs a real directory to serve files from.
STATIC_DIR = Path(__file__).resolve().parent / "static"

# The verify page's Python runtime (Pyodide) is an ES module beside its WebAssembly: a
# browser runs neither unless served with these types, which not every system's table has.
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("application/wasm", ".wasm")
