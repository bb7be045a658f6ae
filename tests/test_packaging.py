"""The wheel ships every folder of the package, and only those.

pyproject.toml lists the packages once; these tests hold that list to the folders on disk.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# The one package of the checkout that stays out of the wheel (bench/ is no package).
UNSHIPPED = "tests"


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def package_folders() -> set[str]:
    """Name, as installed, every folder with an __init__.py under a top-level package."""
    return {
        ".".join(("diceledger", *init.parent.relative_to(ROOT).parts))
        for top in ROOT.iterdir()
        if top.name != UNSHIPPED and (top / "__init__.py").is_file()
        for init in top.rglob("__init__.py")
    }


def test_every_package_folder_is_listed_for_the_wheel() -> None:
    config = pyproject()["tool"]["setuptools"]
    found = package_folders()
    assert {"diceledger.cli", "diceledger.domain.dice", "diceledger.migrations.versions"} <= found
    assert found <= set(config["packages"])
    assert config["package-dir"] == {"diceledger": "."}


def test_the_other_listed_folders_ship_only_their_data() -> None:
    config = pyproject()["tool"]["setuptools"]
    data_folders = set(config["packages"]) - package_folders()
    assert "diceledger.web.static" in data_folders
    for name in data_folders:
        assert ROOT.joinpath(*name.split(".")[1:]).is_dir(), name
        assert config["package-data"].get(name), name
    # Data keyed to a package that is not listed would silently stay out of the wheel.
    assert set(config["package-data"]) <= set(config["packages"])
    top_level = {name.split(".")[1] for name in config["packages"] if name != "diceledger"}
    assert not top_level & {"tests", "bench"}


def test_each_top_level_folder_is_banned_as_a_bare_import() -> None:
    lint = pyproject()["tool"]["ruff"]["lint"]
    banned = set(lint["flake8-tidy-imports"]["banned-api"])
    assert banned == {name.split(".")[1] for name in package_folders()}
