"""Roll notation (R1, R2, R13): text to expression tree and back.

Grammar, lowest precedence first; whitespace may stand between tokens::

    sum     := product (("+" | "-") product)*
    product := unary (("*" | "/") unary)*
    unary   := "-"* primary
    primary := NUMBER label? | DICE label? | "(" sum ")"
    DICE    := NUMBER? ("d" | "D") NUMBER "n"?      (no spaces inside)
    label   := "[" text "]"    (1-40 printable characters once stripped, no brackets)

Sizes come from the ladder (R1); a trailing ``n`` marks a term non-exploding (R13). The
limits of R2 (text length, dice per term and per roll, nesting, integer size) are checked
here, so no later stage meets an oversized or unbounded roll.

Errors are ``DiceNotationError`` pointing at the 1-based column of the offending
character; the first problem met reading from the left is the one reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from diceledger.domain.dice.ast import (
    BinaryOp,
    DiceTerm,
    Expression,
    Negate,
    Node,
    Number,
    Operator,
)
from diceledger.domain.dice.evaluate import constant_value, evaluate, first_die, postorder
from diceledger.domain.dice.ladder import ALLOWED_TEXT, is_allowed
from diceledger.domain.errors import DiceNotationError

__all__ = ["parse", "evaluate", "constant_value", "format_expression"]

MAX_TEXT = 1000
MAX_TERM_DICE = 100
MAX_ROLL_DICE = 1000
MAX_DEPTH = 50
# Bounds the depth of the tree, so comparing or printing one never recurses too deep.
MAX_OPERATORS = 150
MAX_NUMBER = 1_000_000
MAX_LABEL = 40

EXPECTED_OPERAND = "expected a number, a die or '('"
DIGITS = frozenset("0123456789")

# A token is a plain tuple, (kind, column, text, value, sides, exploding): parsing a
# 1,000-character roll makes about a thousand of them, and tuples are the cheapest to
# build. ``kind`` is the character itself for + - * / ( ), else number, dice, label, end
# or error (whose ``text`` is the reason); ``column`` is 1-based; ``value`` is a number's
# value or a dice term's count.
Token = tuple[str, int, str, int, int, bool]
SINGLE_CHARACTER_KINDS = frozenset("+-*/()")
ADDITIVE = frozenset("+-")
MULTIPLICATIVE = frozenset("*/")
OPERATORS: dict[str, Operator] = {"+": "+", "-": "-", "*": "*", "/": "/"}


def tokenize(text: str) -> Iterator[Token]:
    """Yield the tokens of notation lazily, ending with an ``end`` or an ``error`` token.

    A lexical problem becomes an error token (its reason in ``text``) instead of an
    exception, so the parser reports it only if no earlier problem stops it first.
    """
    pos, size = 0, len(text)
    try:
        while pos < size:
            char = text[pos]
            if char in SINGLE_CHARACTER_KINDS:
                yield (char, pos + 1, char, 0, 0, True)
                pos += 1
            elif char in DIGITS or char == "d" or char == "D":
                token = _scan_number_or_dice(text, pos)
                yield token
                pos += len(token[2])
            elif char == "[":
                token = _scan_label(text, pos)
                yield token
                pos += len(token[2])
            elif char.isspace():
                pos += 1
            else:
                raise DiceNotationError(f"unexpected {char!r}", pos + 1)
    except DiceNotationError as error:
        yield ("error", error.column or pos + 1, error.reason, 0, 0, True)
        return
    yield ("end", size + 1, "", 0, 0, True)


# A number, or a dice term: optional count, "d" or "D", sides (possibly missing: an error
# below), then an optional "n" (non-exploding). One regex match instead of a character loop.
_NUMBER_OR_DICE = re.compile(r"([0-9]*)(?:[dD]([0-9]*)(n?))?")


def _scan_number_or_dice(text: str, start: int) -> Token:
    match = _NUMBER_OR_DICE.match(text, start)
    assert match is not None  # the pattern matches the empty string
    count_text, sides_text, marker = match.groups()
    if sides_text is None:
        value = int(count_text)
        if value > MAX_NUMBER:
            raise DiceNotationError(f"number too large (at most {MAX_NUMBER:,})", start + 1)
        return ("number", start + 1, count_text, value, 0, True)
    count = int(count_text) if count_text else 1
    if count < 1:
        raise DiceNotationError("a dice term needs at least 1 die", start + 1)
    if count > MAX_TERM_DICE:
        raise DiceNotationError(f"at most {MAX_TERM_DICE} dice in one term", start + 1)
    sides_start = start + len(count_text) + 1
    if not sides_text:
        raise DiceNotationError(
            f"expected a die size after 'd' (allowed: {ALLOWED_TEXT})", sides_start + 1
        )
    sides = int(sides_text)
    if not is_allowed(sides):
        shown = sides_text if len(sides_text) <= 8 else sides_text[:8] + "..."
        raise DiceNotationError(
            f"d{shown} is not an allowed die (allowed: {ALLOWED_TEXT})", sides_start + 1
        )
    return ("dice", start + 1, match.group(), count, sides, not marker)


def _scan_label(text: str, start: int) -> Token:
    close = text.find("]", start + 1)
    inner_open = text.find("[", start + 1, len(text) if close < 0 else close)
    if inner_open >= 0:
        raise DiceNotationError("'[' inside a label", inner_open + 1)
    if close < 0:
        raise DiceNotationError("unclosed '[' opened", start + 1)
    raw = text[start + 1 : close]
    label = raw.strip()
    if not label:
        raise DiceNotationError("empty label", start + 1)
    if not label.isprintable():
        offset = raw.index(label) + next(i for i, c in enumerate(label) if not c.isprintable())
        raise DiceNotationError("unprintable character in label", start + 2 + offset)
    if len(label) > MAX_LABEL:
        raise DiceNotationError(f"label longer than {MAX_LABEL} characters", start + 1)
    return ("label", start + 1, text[start : close + 1], 0, 0, True)


def parse(text: str) -> Expression:
    """Parse roll notation such as ``2d6+3[STR]`` into an expression tree (R2)."""
    if len(text) > MAX_TEXT:
        raise DiceNotationError(f"expression longer than {MAX_TEXT} characters", MAX_TEXT + 1)
    if not text.strip():
        raise DiceNotationError("empty expression", 1)
    return _Parser(text).parse()


class _Parser:
    """Recursive descent over ``tokenize``; the parenthesis cap bounds its depth."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._next_token = tokenize(text).__next__
        self._token = self._next_token()
        self._terms: list[DiceTerm] = []
        self._dice = 0
        self._depth = 0
        self._operators = 0

    def parse(self) -> Expression:
        root = self._sum()
        if self._token[0] != "end":
            raise self._unexpected()
        return Expression(self._text, root, tuple(self._terms))

    # Each loop below reads self._token and consumes it by fetching the next one; the
    # end and error tokens match nothing, so the stream is never read past them.

    def _sum(self) -> Node:
        left = self._product()
        while (op := self._token)[0] in ADDITIVE:
            self._count_operator(op[1])
            self._token = self._next_token()
            left = BinaryOp(OPERATORS[op[0]], left, self._product(), op[1])
        return left

    def _product(self) -> Node:
        left = self._unary()
        while (op := self._token)[0] in MULTIPLICATIVE:
            self._count_operator(op[1])
            self._token = self._next_token()
            divisor_column = self._token[1]
            right = self._unary()
            if op[0] == "/":
                _check_divisor(right, divisor_column)
            left = BinaryOp(OPERATORS[op[0]], left, right, op[1])
        return left

    def _unary(self) -> Node:
        # A loop, not recursion: "----...-1" may be hundreds of signs long.
        signs: list[int] = []
        while (token := self._token)[0] == "-":
            self._count_operator(token[1])
            signs.append(token[1])
            self._token = self._next_token()
        node = self._primary()
        for column in reversed(signs):
            node = Negate(node, column)
        return node

    def _count_operator(self, column: int) -> None:
        self._operators += 1
        if self._operators > MAX_OPERATORS:
            raise DiceNotationError(f"more than {MAX_OPERATORS} operators in one roll", column)

    def _primary(self) -> Node:
        kind, column, text, value, sides, exploding = self._token
        if kind == "number":
            self._token = self._next_token()
            return Number(value, column, self._label())
        if kind == "dice":
            self._token = self._next_token()
            return self._dice_term(column, value, sides, exploding)
        if kind == "(":
            return self._parenthesized(column)
        if kind == "error":
            raise DiceNotationError(text, column)
        raise DiceNotationError(EXPECTED_OPERAND, column)

    def _dice_term(self, column: int, count: int, sides: int, exploding: bool) -> DiceTerm:
        self._dice += count
        if self._dice > MAX_ROLL_DICE:
            raise DiceNotationError(f"more than {MAX_ROLL_DICE} dice in one roll", column)
        term = DiceTerm(count, sides, exploding, len(self._terms), column, self._label())
        self._terms.append(term)
        return term

    def _parenthesized(self, opening: int) -> Node:
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise DiceNotationError(f"parentheses nested more than {MAX_DEPTH} deep", opening)
        self._token = self._next_token()
        inner = self._sum()
        kind = self._token[0]
        if kind == "end":
            raise DiceNotationError("unclosed '(' opened", opening)
        if kind != ")":
            raise self._unexpected()
        self._token = self._next_token()
        self._depth -= 1
        return inner

    def _label(self) -> str | None:
        kind, _, text, *_ = self._token
        if kind != "label":
            return None
        self._token = self._next_token()
        return text[1:-1].strip()

    def _unexpected(self) -> DiceNotationError:
        kind, column, text, *_ = self._token
        if kind == "error":
            return DiceNotationError(text, column)
        if kind == "label":
            return DiceNotationError("a label may follow only a number or a die", column)
        return DiceNotationError(f"unexpected {text[0]!r}", column)


def _check_divisor(divisor: Node, column: int) -> None:
    # Refused at parse time: a divisor that depends on dice could be zero only after the
    # dice were drawn, and a roll must never fail halfway (R2).
    if first_die(divisor) is not None or evaluate(divisor, {}) == 0:
        raise DiceNotationError("divisor must be a non-zero constant", column)


# Binding strength in the canonical form: a child binding more loosely than its parent
# requires needs parentheses.
_SUM, _PRODUCT, _UNARY, _ATOM = 1, 2, 3, 4


def format_expression(expression: Expression | Node) -> str:
    """Return the canonical text of an expression: no spaces, explicit counts, few parens."""
    root = expression.root if isinstance(expression, Expression) else expression
    parts: list[tuple[str, int]] = []
    for node in postorder(root):
        if isinstance(node, Number):
            parts.append((f"{node.value}{_label_text(node.label)}", _ATOM))
        elif isinstance(node, DiceTerm):
            marker = "" if node.exploding else "n"
            text = f"{node.count}d{node.sides}{marker}{_label_text(node.label)}"
            parts.append((text, _ATOM))
        elif isinstance(node, Negate):
            parts.append(("-" + _wrap(parts.pop(), _UNARY), _UNARY))
        else:
            strength = _SUM if node.op in "+-" else _PRODUCT
            right = _wrap(parts.pop(), strength + 1)
            left = _wrap(parts.pop(), strength)
            parts.append((f"{left}{node.op}{right}", strength))
    return parts[0][0]


def _wrap(part: tuple[str, int], needed: int) -> str:
    text, strength = part
    return text if strength >= needed else f"({text})"


def _label_text(label: str | None) -> str:
    return "" if label is None else f"[{label}]"
