"""Tell whether two member names could be mistaken for each other (Unicode confusables).

The table is Unicode's own list of confusable characters (UTS #39, confusables.txt), as
the ``confusable_homoglyphs`` package ships it. Like the UTS #39 skeleton, each character
is replaced by one representative of the characters it can be confused with (Cyrillic
``а`` and Greek ``α`` by Latin ``a``, ``m`` by ``rn``, ``I`` and ``1`` by ``l``); two
names look alike when their skeletons are equal, as written or once case-folded.
"""

from __future__ import annotations

import functools
import unicodedata

# The package's table keeps the direction marks around right-to-left glyphs it printed.
_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")


@functools.cache
def _table() -> dict[str, list[dict[str, str]]]:
    # Importing the package parses its whole JSON table, a large share of a command's
    # start-up: only a command that compares names (a join) pays it, not every command.
    from confusable_homoglyphs import confusables

    table: dict[str, list[dict[str, str]]] = confusables.confusables_data
    return table


def _homoglyphs(text: str) -> list[str]:
    return [entry["c"].translate(_DIRECTION_MARKS) for entry in _table().get(text, ())]


@functools.cache
def _representative(char: str) -> str:
    """Return the character (or sequence) that stands for everything ``char`` looks like.

    The table lists, for a prototype, every character mapped to it, and for any other
    character its one prototype. A pair that list only each other cannot tell which is
    the prototype, so both take the smaller.
    """
    glyphs = _homoglyphs(char)
    if len(glyphs) != 1:
        return char  # a prototype of several, or confusable with nothing
    prototype = glyphs[0]
    back = _homoglyphs(prototype)
    if back == [char]:
        return min(char, prototype)
    return prototype


def skeleton(name: str) -> str:
    """Return the name (NFKC first) with each character replaced by its representative."""
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    return unicodedata.normalize("NFD", "".join(map(_representative, decomposed)))


def looks_alike(name: str, other: str) -> bool:
    """Tell whether two names could be taken for each other on screen."""
    return skeleton(name) == skeleton(other) or (
        skeleton(name.casefold()) == skeleton(other.casefold())
    )
