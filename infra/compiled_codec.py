"""Event decoders compiled once per class: the codec's checks without its per-field calls.

``infra.codec`` rebuilds an event from JSON data by walking a plan of converters, a
function call per field; a rebuild decodes every event of the log that way. Here the same
checks (an object with no unknown key, every field exactly of its type, lists for tuples)
are written out as the straight-line source of one function per class and compiled, as
``dataclasses`` compiles ``__init__``. A decoder only ever accepts what the codec's
reference path accepts and builds the same value; on anything else it raises
``Mismatch`` and the caller runs the reference path, which accepts it or says exactly
what is wrong.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any

from diceledger.domain.session import events as ev

Decoder = Callable[[Any], Any]


class Mismatch(Exception):
    """The data is not exactly what a decoder expects: let the reference path judge it."""


_MISSING = object()
_SCALARS = {int: "int", str: "str", bool: "bool"}


class _Writer:
    """Source lines and the names they refer to, for one class's decoder."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[str, object] = {"Mismatch": Mismatch, "MISSING": _MISSING}

    def name(self, value: object) -> str:
        label = f"_n{len(self.names)}"
        self.names[label] = value
        return label

    def convert(self, variable: str, hint: Any, indent: str) -> None:
        """Write the check (and rebuild) of ``variable`` as the codec's converter does."""
        origin = typing.get_origin(hint)
        if origin in (types.UnionType, typing.Union):
            inner = next(a for a in typing.get_args(hint) if a is not type(None))
            self.lines.append(f"{indent}if {variable} is not None:")
            self.convert(variable, inner, indent + "    ")
        elif origin is tuple:
            item = typing.get_args(hint)[0]
            self.lines.append(
                f"{indent}if type({variable}) is not list and type({variable}) is not tuple:"
            )
            self.lines.append(f"{indent}    raise Mismatch")
            if item in _SCALARS:
                self.lines.append(f"{indent}for _i in {variable}:")
                self.lines.append(f"{indent}    if type(_i) is not {_SCALARS[item]}:")
                self.lines.append(f"{indent}        raise Mismatch")
                self.lines.append(f"{indent}{variable} = tuple({variable})")
            else:
                build = self.name(decoder_for(item))
                self.lines.append(f"{indent}{variable} = tuple([{build}(_i) for _i in {variable}])")
        elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
            self.lines.append(f"{indent}{variable} = {self.name(decoder_for(hint))}({variable})")
        elif hint in _SCALARS:
            self.lines.append(f"{indent}if type({variable}) is not {_SCALARS[hint]}:")
            self.lines.append(f"{indent}    raise Mismatch")
        else:
            raise AssertionError(f"no JSON form for {hint!r}")


_DECODERS: dict[type, Decoder] = {}


def decoder_for(cls: type) -> Decoder:
    """Return the compiled decoder of a dataclass of the session events' module."""
    decoder = _DECODERS.get(cls)
    if decoder is None:
        decoder = _DECODERS[cls] = _compile(cls)
    return decoder


def _compile(cls: type) -> Decoder:
    hints = typing.get_type_hints(cls, vars(ev))
    fields = [f for f in dataclasses.fields(cls) if f.init]
    writer = _Writer()
    lines = writer.lines
    lines.append("def decode(data):")
    lines.append("    if type(data) is not dict:")
    lines.append("        raise Mismatch")
    lines.append(f"    present = {sum(f.default is dataclasses.MISSING for f in fields)}")
    arguments = []
    for number, field in enumerate(fields):
        variable = f"v{number}"
        arguments.append(variable)
        if field.default is dataclasses.MISSING:
            lines.append(f"    {variable} = data[{field.name!r}]")
            writer.convert(variable, hints[field.name], "    ")
        else:
            # A missing field takes the class's default, as the reference path's
            # ``cls(**values)`` gives it; the default is not checked there either.
            lines.append(f"    {variable} = data.get({field.name!r}, MISSING)")
            lines.append(f"    if {variable} is MISSING:")
            lines.append(f"        {variable} = {writer.name(field.default)}")
            lines.append("    else:")
            lines.append("        present += 1")
            writer.convert(variable, hints[field.name], "        ")
    lines.append("    if len(data) != present:")
    lines.append("        raise Mismatch  # a key the class does not have")
    lines.append(f"    return {writer.name(cls)}({', '.join(arguments)})")
    namespace = dict(writer.names)
    exec(compile("\n".join(lines), f"<decoder of {cls.__name__}>", "exec"), namespace)
    decoder: Decoder = namespace["decode"]  # type: ignore[assignment]
    return decoder
