"""The die sizes the ruleset allows (R1) and the explosion step-down ladder (R12)."""

from __future__ import annotations

# Small to large; the order is the explosion ladder read backwards.
SIZES: tuple[int, ...] = (4, 6, 8, 10, 12, 20)
SMALLEST = SIZES[0]
ALLOWED_TEXT = ", ".join(f"d{s}" for s in SIZES)


def is_allowed(sides: int) -> bool:
    """Tell whether a die of this many sides is allowed (R1)."""
    return sides in SIZES


def step_down(sides: int) -> int:
    """Return the next smaller size on the ladder; a d4 stays a d4 (R12)."""
    index = SIZES.index(sides)
    return SIZES[max(index - 1, 0)]


def chain_size(sides: int, step: int) -> int:
    """Return the size of explosion die number ``step`` (1-based) of a die of ``sides``.

    Step 1 is the same size as the exploding die; each later step goes one size down.
    """
    size = sides
    for _ in range(step - 1):
        size = step_down(size)
    return size
