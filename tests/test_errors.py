"""The error tree in domain/errors.py's docstring names every error, where it hangs."""

from __future__ import annotations

import re

from diceledger.domain import errors


def test_the_docstring_tree_lists_every_error_under_its_parent() -> None:
    classes = {
        name: cls
        for name, cls in vars(errors).items()
        if isinstance(cls, type) and issubclass(cls, errors.DiceledgerError)
    }
    doc = errors.__doc__ or ""
    drawn: dict[str, str] = {}
    parents: list[tuple[int, str]] = []
    for line in doc.splitlines():
        match = re.match(r"^[\s│├└─]*(\w+Error)\b", line)
        if not match or match.group(1) not in classes:
            continue
        depth = match.start(1)  # the column a name starts at is its depth in the tree
        while parents and parents[-1][0] >= depth:
            parents.pop()
        if parents:
            drawn[match.group(1)] = parents[-1][1]
        parents.append((depth, match.group(1)))
    assert set(drawn) | {"DiceledgerError"} == set(classes)
    for name, parent in drawn.items():
        assert classes[name].__base__ is classes[parent], name
