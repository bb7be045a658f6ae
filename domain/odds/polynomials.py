"""Fast exact products of polynomials with non-negative integer coefficients."""

from __future__ import annotations

from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal


def polymul(a: list[int], b: list[int], bits: int) -> list[int]:
    """Multiply two polynomials of non-negative integer coefficients.

    Packs each into one big number (Kronecker substitution) so that a single big-number
    product does the whole convolution; ``bits`` must bound every result coefficient.
    """
    if (len(a) + len(b)) * bits < _DECIMAL_FROM_BITS or bits > _DECIMAL_MAX_BITS:
        return _polymul_binary(a, b, bits)
    return _polymul_decimal(a, b, bits)


# From about this size the decimal module's number-theoretic multiplication beats
# CPython's Karatsuba by far (30x at 40 million bits); below it, int is quicker.
_DECIMAL_FROM_BITS = 400_000
# Python refuses int <-> str conversions past 4300 digits by default.
_DECIMAL_MAX_BITS = 14_000


def _polymul_binary(a: list[int], b: list[int], bits: int) -> list[int]:
    width = (bits + 8) // 8
    packed_a = int.from_bytes(b"".join(c.to_bytes(width, "little") for c in a), "little")
    packed_b = int.from_bytes(b"".join(c.to_bytes(width, "little") for c in b), "little")
    length = len(a) + len(b) - 1
    raw = (packed_a * packed_b).to_bytes(length * width, "little")
    return [int.from_bytes(raw[i : i + width], "little") for i in range(0, length * width, width)]


def _polymul_decimal(a: list[int], b: list[int], bits: int) -> list[int]:
    digits = bits * 30103 // 100000 + 2
    pattern = f"%0{digits}d"
    packed_a = Decimal("".join(pattern % c for c in reversed(a)))
    packed_b = Decimal("".join(pattern % c for c in reversed(b)))
    product = format(_EXACT.multiply(packed_a, packed_b), "f")
    length = len(a) + len(b) - 1
    text = product.rjust(length * digits, "0")
    end = len(text)
    return [int(text[i - digits : i]) for i in range(end, 0, -digits)]


_EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)
