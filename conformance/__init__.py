"""The conformance corpus: exported sessions and the verdict a verifier must reach on each.

The files ship with the package; ``cases.json`` lists them (see README.md beside it).
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

INDEX = "cases.json"


def corpus_folder() -> Traversable:
    """Return the folder holding the corpus files and their index."""
    return files(__name__)
