"""domain/ stays pure: no persistence, CLI or I/O libraries among its imports."""

from __future__ import annotations

import ast
from pathlib import Path

DOMAIN = Path(__file__).resolve().parents[2] / "domain"
FORBIDDEN = {"sqlalchemy", "alembic", "click", "infra", "cli", "random", "psycopg", "sqlite3"}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_domain_modules_import_no_io_or_framework_library() -> None:
    modules = sorted(DOMAIN.rglob("*.py"))
    assert modules, "domain/ has no modules to check"
    offenders = {
        str(path.relative_to(DOMAIN)): sorted(imported_roots(path) & FORBIDDEN)
        for path in modules
        if imported_roots(path) & FORBIDDEN
    }
    assert offenders == {}


def test_purity_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    module = tmp_path / "bad.py"
    module.write_text("import sqlalchemy\nfrom click import echo\n")
    assert imported_roots(module) & FORBIDDEN == {"sqlalchemy", "click"}
