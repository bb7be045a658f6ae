"""Small builders shared by the engine tests."""

from __future__ import annotations

from collections.abc import Iterable

from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import Modifier, RollSpec, build_spec
from diceledger.domain.dice.sources import Draw, OneAtATime, Provenance


def mods(*amounts: int) -> tuple[Modifier, ...]:
    return tuple(Modifier(a, f"src{i}") for i, a in enumerate(amounts))


def check(text: str, adv: int = 0, dis: int = 0, **options: object) -> RollSpec:
    return build_spec(
        parse(text),
        check=True,
        advantage=mods(adv) if adv else (),
        disadvantage=mods(dis) if dis else (),
        **options,  # type: ignore[arg-type]
    )


def plain(text: str, **options: object) -> RollSpec:
    return build_spec(parse(text), check=False, **options)  # type: ignore[arg-type]


class FacesThenOnes(OneAtATime):
    """Gives the listed faces, then 1s forever: a source that never runs out."""

    def __init__(self, faces: Iterable[int]) -> None:
        self.faces = list(faces)
        self.sizes: list[int] = []

    def draw(self, sides: int) -> Draw:
        self.sizes.append(sides)
        face = min(self.faces.pop(0), sides) if self.faces else 1
        return Draw(sides, face, Provenance.MANUAL)


class AlwaysMax(OneAtATime):
    """A broken source that always shows the maximum."""

    def draw(self, sides: int) -> Draw:
        return Draw(sides, sides, Provenance.MANUAL)
