"""The Python the verify page runs under Pyodide: ``web.in_browser`` and what it imports.

The modules are read from the installed package when first asked for and zipped, so the
browser always runs this server's own verify, never a copy that could drift from it. Which
modules: ``web.in_browser`` and, transitively, every diceledger module its files import
(read from their source, so an import inside a function or under ``TYPE_CHECKING`` counts
too; an extra file costs bytes, a missing one a failed verify), with the packages around
them. The rest of the package (the store's database, the server) stays out.
"""

from __future__ import annotations

import ast
import importlib.util
import io
import zipfile
from functools import cache
from pathlib import Path

ENTRY = "diceledger.web.in_browser"
PACKAGE = "diceledger"
# A fixed date for every file: the same modules zip to the same bytes.
_DATE = (2020, 1, 1, 0, 0, 0)


@cache
def bundle() -> bytes:
    """Return the zip of the verifier's modules, laid out as on sys.path (diceledger/...)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, path in sorted(module_files(ENTRY).items()):
            info = zipfile.ZipInfo(name, _DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def module_files(entry: str) -> dict[str, Path]:
    """Return the source file of ``entry`` and of every diceledger module it imports, by path."""
    files: dict[str, Path] = {}
    waiting, seen = [entry], set()
    while waiting:
        name = waiting.pop()
        if name in seen:
            continue
        seen.add(name)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue  # a namespace package (the root) has no file of its own
        path = Path(spec.origin)
        is_package = spec.submodule_search_locations is not None
        files[_arcname(name, is_package)] = path
        parent = name.rpartition(".")[0]
        waiting += [parent] if parent.startswith(PACKAGE + ".") else []
        waiting += _imports(path, name, is_package)
    return files


def _imports(path: Path, name: str, is_package: bool) -> list[str]:
    """Return the diceledger modules a source file imports (a name imported may be one)."""
    package = name if is_package else name.rpartition(".")[0]
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = importlib.util.resolve_name("." * node.level + base, package)
            found.append(base)
            found += [f"{base}.{alias.name}" for alias in node.names]
    return [module for module in found if module.startswith(PACKAGE + ".") and _is_module(module)]


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def _arcname(name: str, is_package: bool) -> str:
    path = name.replace(".", "/")
    return f"{path}/__init__.py" if is_package else f"{path}.py"
