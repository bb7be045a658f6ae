"""Time the roll-notation parser on 1,000-character expressions, valid and pathological.

Prints one JSON line: microseconds of CPU per parse (best of several runs) for each case. The
clock is this process's CPU time, so other work on the machine disturbs the figures less.
Run: .venv/bin/python bench/parse_bench.py
"""

from __future__ import annotations

import time
import timeit

from benchlib.machine import describe
from benchlib.options import emit, parse_options

from diceledger.domain.dice.notation import parse
from diceledger.domain.errors import DiceNotationError


def _pad(text: str, filler: str = " ") -> str:
    # Every case is exactly 1,000 characters, the longest expression R2 allows.
    return text + filler * (1000 - len(text))


CASES: dict[str, str] = {
    "mixed_terms": _pad(("2d6+3[STR]*(1d8-2)/2-d4n+" * 40)[:-1][:999]),
    "long_sum_1_plus": "1+" * 499 + "1" + " ",
    "d20_repeated": _pad(("d20+" * 250)[:-1]),
    "negation_chain": "-" * 999 + "1",
    "nested_parens_500_error": "(" * 500 + ")" * 500,
    "dice_over_1000_error": _pad("100d6+" * 11 + "1"),
    "bad_char_at_end_error": _pad("1+" * 499 + "1", "x"),
}


def parse_quietly(text: str) -> None:
    """Parse one expression, swallowing the notation error a pathological case raises."""
    try:
        parse(text)
    except DiceNotationError:
        pass


def microseconds_per_parse(text: str, number: int = 200, repeat: int = 5) -> float:
    """Return the best mean time of one parse over several timing runs, in microseconds."""
    runs = timeit.repeat(
        lambda: parse_quietly(text), timer=time.process_time, number=number, repeat=repeat
    )
    return round(min(runs) / number * 1e6, 1)


def main() -> None:
    """Print the timings as one JSON line."""
    options = parse_options(__doc__.splitlines()[0])
    assert all(len(text) == 1000 for text in CASES.values())
    timings = {name: microseconds_per_parse(text) for name, text in CASES.items()}
    emit("parse_bench", options.quick, machine=describe(), microseconds_per_parse=timings)


if __name__ == "__main__":
    main()
