"""The layers import one way: domain is pure, infra never reaches a face, faces stay apart."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PURE_LIBRARIES = {"sqlalchemy", "alembic", "click", "random", "psycopg", "sqlite3"}
WEB_LIBRARIES = {"starlette", "fastapi", "uvicorn"}

# For each folder of the package: the imports its modules must never make.
FORBIDDEN: dict[str, set[str]] = {
    "domain": PURE_LIBRARIES
    | WEB_LIBRARIES
    | {"cryptography", "diceledger.infra", "diceledger.cli", "diceledger.web"},
    "infra": {"click", "diceledger.cli", "diceledger.web"} | WEB_LIBRARIES,
    "cli": {"sqlalchemy", "alembic", "diceledger.web", "starlette", "fastapi"},
    "web": {"click", "sqlalchemy", "alembic", "diceledger.cli"},
    # Data and a finder for it: the corpus depends on nothing of the package.
    "conformance": PURE_LIBRARIES
    | WEB_LIBRARIES
    | {"diceledger.domain", "diceledger.infra", "diceledger.cli", "diceledger.web"},
}


def imported_roots(path: Path) -> set[str]:
    """Return the libraries a module imports, and for our own package the layer it reaches."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return {
        ".".join(n.split(".")[:2]) if n.startswith("diceledger.") else n.split(".")[0]
        for n in names
    }


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_each_layer_imports_only_what_its_place_allows(layer: str) -> None:
    modules = sorted((ROOT / layer).rglob("*.py"))
    if layer != "web":
        assert modules, f"{layer}/ has no modules to check"
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_roots(path) & FORBIDDEN[layer])
        for path in modules
        if imported_roots(path) & FORBIDDEN[layer]
    }
    assert offenders == {}


def test_layer_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    module = tmp_path / "bad.py"
    module.write_text(
        "import sqlalchemy\nfrom click import echo\nfrom diceledger.infra.db import open_engine\n"
    )
    assert imported_roots(module) & FORBIDDEN["domain"] == {
        "sqlalchemy",
        "click",
        "diceledger.infra",
    }
