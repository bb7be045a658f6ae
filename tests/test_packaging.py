"""The wheel ships every folder of the package, and only those."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_FOLDERS = ("cli", "conformance", "domain", "infra", "migrations", "web")


def test_every_package_folder_is_listed_for_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    on_disk = {
        "diceledger." + ".".join(init.parent.relative_to(ROOT).parts)
        for folder in SHIPPED_FOLDERS
        for init in (ROOT / folder).rglob("__init__.py")
    }
    assert on_disk, "no package folder found"
    assert listed == on_disk
    assert config["package-dir"] == {"diceledger": "."}
