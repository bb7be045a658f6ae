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


# The faces: they reach infra/ only through the application layer and the composition root.
FACES = ("cli", "web")
FACE_DOORS = ("diceledger.infra.app", "diceledger.infra.bootstrap")
# What a face never sees: the unfiltered session state. Each roll reaches a face as a
# ShownRoll or a HiddenRoll, decided once for its viewer in infra/app/results.py.
SESSION_STATE = "diceledger.domain.session.state"


def imported_modules(path: Path) -> set[str]:
    """Return every module a module imports by absolute name."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            # `from diceledger.domain.session import state` reaches that module too.
            names.update(
                f"{node.module}.{alias.name}"
                for alias in node.names
                if _is_package_module(f"{node.module}.{alias.name}")
            )
    return names


def _is_package_module(name: str) -> bool:
    if not name.startswith("diceledger."):
        return False
    path = ROOT.joinpath(*name.split(".")[1:])
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imported_roots(path: Path) -> set[str]:
    """Return the libraries a module imports, and for our own package the layer it reaches."""
    return {
        ".".join(n.split(".")[:2]) if n.startswith("diceledger.") else n.split(".")[0]
        for n in imported_modules(path)
    }


def _under(name: str, module: str) -> bool:
    return name == module or name.startswith(module + ".")


def face_crossings(path: Path) -> set[str]:
    """Return what a face module imports that a face must not: infra/ past its two doors,
    and the session state."""
    return {
        name
        for name in imported_modules(path)
        if (_under(name, "diceledger.infra") and not any(_under(name, d) for d in FACE_DOORS))
        or _under(name, SESSION_STATE)
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
        "import sqlalchemy\nfrom click import echo\n"
        "from diceledger.infra.store.database import open_engine\n"
    )
    assert imported_roots(module) & FORBIDDEN["domain"] == {
        "sqlalchemy",
        "click",
        "diceledger.infra",
    }


def test_faces_reach_infra_only_through_the_application_layer_and_never_see_the_state() -> None:
    crossings = {
        str(path.relative_to(ROOT)): found
        for face in FACES
        for path in sorted((ROOT / face).rglob("*.py"))
        if (found := face_crossings(path))
    }
    assert crossings == {}


def test_face_check_catches_the_session_state_and_a_back_door(tmp_path: Path) -> None:
    module = tmp_path / "bad.py"
    module.write_text(
        "from diceledger.domain.session.state import SessionState\n"
        "from diceledger.domain.session import state\n"
        "from diceledger.infra.store.sql import SqlEventStore\n"
        "from diceledger.infra.app.results import ShownRoll\n"
        "from diceledger.infra.bootstrap import bootstrap\n"
        "from diceledger.domain.session.views import roll_view\n"
    )
    assert face_crossings(module) == {
        "diceledger.domain.session.state",
        "diceledger.infra.store.sql",
    }
