"""A dict of a session's rolls or actions, some of them still in a snapshot's text.

A state restored from a snapshot (``infra.snapshot_codec``) keeps each roll and action
as the text it was stored as, and decodes one only when it is read: a command on a long
session touches a few rolls, not all of them. Reading one key decodes that value alone;
any walk over the values (``values``, ``items``, equality, a copy) decodes them all first,
so what a caller sees is always exactly the dict a full replay would have built.

It subclasses dict so that states folded from the log keep plain, fast dicts, and code
that reads a state needs no other type. Text is never a value of these dicts otherwise:
rolls and actions are dataclasses.
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterable, ValuesView
from typing import Any, TypeVar, cast, overload

K = TypeVar("K")
V = TypeVar("V")
D = TypeVar("D")


class Restored(dict[K, V]):
    """Values given as text are decoded by ``decode`` when first read, then kept."""

    def __init__(self, encoded: Iterable[tuple[K, str]], decode: Callable[[str], V]) -> None:
        super().__init__(cast(Iterable[tuple[K, V]], encoded))
        self._decode = decode

    def __getitem__(self, key: K) -> V:
        value: object = super().__getitem__(key)
        if isinstance(value, str):
            decoded = self._decode(value)
            super().__setitem__(key, decoded)  # an existing key: the order stays
            return decoded
        return cast(V, value)

    @overload
    def get(self, key: K, default: None = None, /) -> V | None: ...

    @overload
    def get(self, key: K, default: V | D, /) -> V | D: ...

    def get(self, key: K, default: object = None, /) -> object:
        return self[key] if key in self else default

    def encoded(self, key: K) -> str | None:
        """Return the stored text of a value not decoded since it was restored, else None."""
        value: object = super().__getitem__(key)
        return value if isinstance(value, str) else None

    def decode_all(self) -> None:
        """Decode every value still held as text."""
        for key in list(self.keys()):
            self[key]

    def values(self) -> ValuesView[V]:  # type: ignore[override]
        self.decode_all()
        return super().values()

    def items(self) -> ItemsView[K, V]:  # type: ignore[override]
        self.decode_all()
        return super().items()

    def __eq__(self, other: object) -> bool:
        self.decode_all()
        if isinstance(other, Restored):
            other.decode_all()
        return super().__eq__(other)

    __hash__ = None

    def __repr__(self) -> str:
        self.decode_all()
        return super().__repr__()

    def copy(self) -> dict[K, V]:
        self.decode_all()
        return dict(super().items())

    def pop(self, key: K, *default: Any) -> Any:
        if key in self:
            self[key]
        return super().pop(key, *default)

    def __reduce_ex__(self, protocol: Any) -> Any:
        # copy.deepcopy and pickle see a plain dict of decoded values.
        return (dict, (self.copy(),))
