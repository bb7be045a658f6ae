"""Roll notation: parsing, limits, errors, evaluation and the canonical form (R1, R2, R10, R13)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from diceledger.domain.dice.ast import BinaryOp, DiceTerm, Expression, Negate, Node, Number
from diceledger.domain.dice.ladder import ALLOWED_TEXT, SIZES
from diceledger.domain.dice.notation import constant_value, evaluate, format_expression, parse
from diceledger.domain.errors import DiceNotationError


def error_of(text: str) -> str:
    with pytest.raises(DiceNotationError) as caught:
        parse(text)
    return str(caught.value)


def value_of(text: str, *term_values: int) -> int:
    return evaluate(parse(text).root, dict(enumerate(term_values)))


def shape(node: Node) -> object:
    """Return the tree without columns, for comparing trees parsed from different texts."""
    if isinstance(node, DiceTerm):
        return ("dice", node.count, node.sides, node.exploding, node.term, node.label)
    if isinstance(node, Number):
        return ("number", node.value, node.label)
    if isinstance(node, Negate):
        return ("negate", shape(node.operand))
    return (node.op, shape(node.left), shape(node.right))


# --- R2: the grammar, feature by feature ----------------------------------------------


def test_r2_dice_term_has_count_sides_and_position() -> None:
    expression = parse("2d6")
    assert expression.terms == (DiceTerm(2, 6, True, 0, 1),)
    assert expression.root is expression.terms[0]
    assert expression.text == "2d6"


def test_r2_bare_d_means_one_die_and_capital_d_is_accepted() -> None:
    assert parse("d8").terms == (DiceTerm(1, 8, True, 0, 1),)
    assert parse("3D10").terms == (DiceTerm(3, 10, True, 0, 1),)


def test_r2_dice_terms_are_numbered_left_to_right_in_draw_order() -> None:
    expression = parse("d4+2d6*(3d8-d10)")
    assert [(t.term, t.count, t.sides) for t in expression.terms] == [
        (0, 1, 4),
        (1, 2, 6),
        (2, 3, 8),
        (3, 1, 10),
    ]
    assert expression.dice_count == 7


def test_r2_columns_point_at_each_tokens_first_character() -> None:
    root = parse("1d20 + 3").root
    assert isinstance(root, BinaryOp)
    assert (root.column, root.left.column, root.right.column) == (6, 1, 8)


def test_r2_whitespace_between_tokens_is_ignored() -> None:
    assert shape(parse("  2d6 \t+  3 ").root) == shape(parse("2d6+3").root)


def test_r2_multiplication_binds_tighter_than_addition() -> None:
    root = parse("1+2*3").root
    assert isinstance(root, BinaryOp) and root.op == "+"
    assert isinstance(root.right, BinaryOp) and root.right.op == "*"
    assert value_of("1+2*3") == 7
    assert value_of("(1+2)*3") == 9


def test_r2_operators_of_equal_precedence_associate_to_the_left() -> None:
    assert value_of("10-4-3") == 3
    assert value_of("100/5/2") == 10
    assert value_of("2*3/4") == 1  # (2*3)/4, not 2*(3/4) == 0


def test_r2_unary_minus_binds_tighter_than_multiplication() -> None:
    root = parse("-2*3").root
    assert isinstance(root, BinaryOp) and isinstance(root.left, Negate)
    assert value_of("2*-3") == -6
    assert value_of("--3") == 3
    assert value_of("1--3") == 4
    assert value_of("-(1d6+2)", 4) == -6


def test_r2_labels_attach_to_numbers_and_dice_and_are_stripped() -> None:
    root = parse("1d20[ attack ]+3 [STR]").root
    assert isinstance(root, BinaryOp)
    assert isinstance(root.left, DiceTerm) and root.left.label == "attack"
    assert isinstance(root.right, Number) and root.right.label == "STR"
    assert root.right.value == 3


def test_r2_label_of_forty_characters_is_accepted() -> None:
    assert parse("1d4[" + "b" * 40 + "]").terms[0].label == "b" * 40


def test_r2_parentheses_group_and_leave_no_node_of_their_own() -> None:
    assert shape(parse("((((2d6))))").root) == shape(parse("2d6").root)


def test_r2_division_by_a_constant_expression_is_accepted() -> None:
    assert value_of("(2d6+3)/2", 8) == 5
    assert value_of("1d20/(1+1)", 7) == 3


# --- R2: errors, each with its message and column -------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1d20+3x", "unexpected 'x' at column 7"),
        ("", "empty expression at column 1"),
        ("   ", "empty expression at column 1"),
        ("1d20+", "expected a number, a die or '(' at column 6"),
        ("2*", "expected a number, a die or '(' at column 3"),
        ("+1", "expected a number, a die or '(' at column 1"),
        ("1+)", "expected a number, a die or '(' at column 3"),
        ("()", "expected a number, a die or '(' at column 2"),
        ("1)", "unexpected ')' at column 2"),
        ("(1))", "unexpected ')' at column 4"),
        ("((1)", "unclosed '(' opened at column 1"),
        ("2*(3+(4)", "unclosed '(' opened at column 3"),
        ("(1 2)", "unexpected '2' at column 4"),
        ("2(3)", "unexpected '(' at column 2"),
        ("2d6d6", "unexpected 'd' at column 4"),
        ("1 d20", "unexpected 'd' at column 3"),
        ("1d20 3x", "unexpected '3' at column 6"),
        ("1+)x", "expected a number, a die or '(' at column 3"),
        ("1/0x", "divisor must be a non-zero constant at column 3"),
        ("é", "unexpected 'é' at column 1"),
        ("1d", f"expected a die size after 'd' (allowed: {ALLOWED_TEXT}) at column 3"),
        ("d", f"expected a die size after 'd' (allowed: {ALLOWED_TEXT}) at column 2"),
        ("0d6", "a dice term needs at least 1 die at column 1"),
        ("1[]", "empty label at column 2"),
        ("1[   ]", "empty label at column 2"),
        ("1[abc", "unclosed '[' opened at column 2"),
        ("1[a[b]", "'[' inside a label at column 4"),
        ("1[a\tb]", "unprintable character in label at column 4"),
        ("1[a][b]", "a label may follow only a number or a die at column 5"),
        ("(1)[x]", "a label may follow only a number or a die at column 4"),
        ("1+[x]", "expected a number, a die or '(' at column 3"),
        ("1d4[" + "b" * 41 + "]", "label longer than 40 characters at column 4"),
        ("1000001", "number too large (at most 1,000,000) at column 1"),
    ],
)
def test_r2_malformed_notation_names_the_problem_and_its_column(text: str, message: str) -> None:
    assert error_of(text) == message


def test_r2_error_carries_reason_and_column_separately() -> None:
    with pytest.raises(DiceNotationError) as caught:
        parse("1d20+3x")
    assert (caught.value.reason, caught.value.column) == ("unexpected 'x'", 7)


@pytest.mark.parametrize(
    ("text", "column"),
    [("1d6/1d4", 5), ("1/0", 3), ("1/-0", 3), ("1/(3-3)", 3), ("2/(1d4-1d4)", 3), ("1/(2*0)", 3)],
)
def test_r2_divisor_must_be_a_non_zero_constant(text: str, column: int) -> None:
    assert error_of(text) == f"divisor must be a non-zero constant at column {column}"


# --- R2: limits -----------------------------------------------------------------------


def test_r2_at_most_100_dice_in_one_term() -> None:
    assert parse("100d6").dice_count == 100
    assert error_of("1+101d6") == "at most 100 dice in one term at column 3"


def test_r2_at_most_1000_dice_in_one_roll() -> None:
    assert parse("+".join(["100d4"] * 10)).dice_count == 1000
    eleventh_term_column = 6 * 10 + 1
    assert error_of("+".join(["100d4"] * 10) + "+d4") == (
        f"more than 1000 dice in one roll at column {eleventh_term_column}"
    )


def test_r2_at_most_1000_characters_checked_before_anything_else() -> None:
    assert parse("1" + " " * 999).root == Number(1, 1)
    assert error_of("1" + " " * 1000) == "expression longer than 1000 characters at column 1001"
    assert error_of("x" * 1001) == "expression longer than 1000 characters at column 1001"


def test_r2_parentheses_nest_at_most_50_deep() -> None:
    assert value_of("(" * 50 + "7" + ")" * 50) == 7
    assert (
        error_of("(" * 51 + "7" + ")" * 51) == "parentheses nested more than 50 deep at column 51"
    )


def test_r2_deep_parentheses_stop_at_the_cap_without_recursion_error() -> None:
    assert error_of("(" * 500 + ")" * 500) == "parentheses nested more than 50 deep at column 51"


def test_r2_integers_up_to_one_million() -> None:
    assert value_of("1000000") == 1_000_000
    assert error_of("2*" + "9" * 900) == "number too large (at most 1,000,000) at column 3"


def test_r2_longest_allowed_sum_and_negation_chain_parse_evaluate_and_format() -> None:
    long_sum = "1+" * 150 + "1"
    long_negation = "-" * 150 + "1"
    assert value_of(long_sum) == 151
    assert value_of(long_negation) == 1
    assert format_expression(parse(long_sum)) == long_sum
    assert format_expression(parse(long_negation)) == long_negation


@pytest.mark.parametrize("text", ["1+" * 499 + "1", "-" * 999 + "1", "1*" * 151 + "1"])
def test_r2_more_than_150_operators_is_refused_before_the_tree_gets_too_deep(text: str) -> None:
    with pytest.raises(DiceNotationError, match="more than 150 operators in one roll"):
        parse(text)


def test_r2_the_deepest_allowed_tree_compares_and_prints() -> None:
    text = "(" * 50 + "-" * 75 + "1" + "+1" * 75 + ")" * 50
    assert parse(text) == parse(text)  # dataclass equality walks the whole tree
    assert repr(parse(text)).count("Negate(") == 75


# --- R1: die sizes --------------------------------------------------------------------


@pytest.mark.parametrize("sides", SIZES)
def test_r1_allowed_sizes_parse(sides: int) -> None:
    assert parse(f"d{sides}").terms[0].sides == sides


@pytest.mark.parametrize("sides", [0, 1, 2, 3, 5, 7, 100, 1000])
def test_r1_other_sizes_are_refused_with_the_allowed_list(sides: int) -> None:
    assert error_of(f"2d{sides}") == (
        f"d{sides} is not an allowed die (allowed: d4, d6, d8, d10, d12, d20) at column 3"
    )


@pytest.mark.parametrize("text", ["d-6", "dX", "1d+6", "2d 6"])
def test_r1_negative_or_non_numeric_size_is_refused_with_the_allowed_list(text: str) -> None:
    column = text.index("d") + 2
    assert error_of(text) == (
        f"expected a die size after 'd' (allowed: {ALLOWED_TEXT}) at column {column}"
    )


# --- R13: the non-exploding marker ----------------------------------------------------


def test_r13_n_after_the_sides_marks_a_term_non_exploding() -> None:
    expression = parse("1d20n+2d6n[fire]+d4")
    assert [(t.sides, t.exploding) for t in expression.terms] == [
        (20, False),
        (6, False),
        (4, True),
    ]
    assert expression.terms[1].label == "fire"


def test_r13_dice_explode_unless_marked() -> None:
    assert parse("1d20").terms[0].exploding is True


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1d20 n", "unexpected 'n' at column 6"),
        ("2d6nn", "unexpected 'n' at column 5"),
        ("3n", "unexpected 'n' at column 2"),
        ("n", "unexpected 'n' at column 1"),
        ("2d6N", "unexpected 'N' at column 4"),
    ],
)
def test_r13_marker_only_right_after_a_dice_terms_sides(text: str, message: str) -> None:
    assert error_of(text) == message


# --- R10 and the evaluation helpers ---------------------------------------------------


def test_r10_division_rounds_down_also_for_negatives() -> None:
    assert value_of("7/2") == 3
    assert value_of("-7/2") == -4
    assert value_of("7/-2") == -4
    assert value_of("(1d6-10)/2", 3) == -4


def test_evaluate_uses_each_terms_value_by_index() -> None:
    assert value_of("2d6+3", 9) == 12
    assert value_of("1d20-1d4*2", 15, 3) == 9


def test_constant_value_computes_dice_free_trees_and_refuses_dice() -> None:
    assert constant_value(parse("2*(3+4)-10/3").root) == 11
    with pytest.raises(DiceNotationError) as caught:
        constant_value(parse("2+1d4").root)
    assert caught.value.column == 3


# --- the canonical form ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("d20 + 3 [ STR ]", "1d20+3[STR]"),
        ("2D6n", "2d6n"),
        ("(2d6+3)/2", "(2d6+3)/2"),
        ("((1))", "1"),
        ("(1-2)-3", "1-2-3"),
        ("1-(2-3)", "1-(2-3)"),
        ("1-(2+3)", "1-(2+3)"),
        ("2*(3*4)", "2*(3*4)"),
        ("(2*3)+4", "2*3+4"),
        ("-(2*3)", "-(2*3)"),
        ("(-2)*3", "-2*3"),
        ("1-(-3)", "1--3"),
    ],
)
def test_format_expression_is_canonical_and_keeps_meaning(text: str, canonical: str) -> None:
    assert format_expression(parse(text)) == canonical
    assert format_expression(parse(text).root) == canonical


# --- properties -----------------------------------------------------------------------

NOTATION_CHARACTERS = "0123456789dDn+-*/()[] \tx"


def assert_parses_or_fails_cleanly(text: str) -> None:
    try:
        expression = parse(text)
    except DiceNotationError as error:
        assert error.column is not None
        assert 1 <= error.column <= max(len(text) + 1, 1001)
    else:
        assert isinstance(expression, Expression)


@given(st.text(max_size=1100))
def test_r2_any_text_parses_or_raises_only_a_notation_error(text: str) -> None:
    assert_parses_or_fails_cleanly(text)


@given(st.text(alphabet=NOTATION_CHARACTERS, max_size=200))
def test_r2_notation_like_text_parses_or_raises_only_a_notation_error(text: str) -> None:
    assert_parses_or_fails_cleanly(text)


@dataclass(frozen=True)
class Fragment:
    """Generated notation with what it must parse to, computed without the parser."""

    text: str
    dice: tuple[tuple[int, int, bool, str | None], ...]
    value: Callable[[Iterator[int]], int]  # consumes term values left to right
    strength: int  # 1 sum, 2 product, 3 unary, 4 atom
    depth: int  # parentheses


SUM, PRODUCT, UNARY, ATOM = 1, 2, 3, 4
OPERATIONS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.floordiv}
spaces = st.sampled_from(["", "", " ", "  ", "\t"])
label_words = st.text(
    alphabet=st.characters(categories=["L", "N", "P", "S"], exclude_characters="[]"),
    min_size=1,
    max_size=8,
)


@st.composite
def labels(draw: st.DrawFn) -> tuple[str, str | None]:
    """Return (label text as written, stored label) or ("", None)."""
    if not draw(st.booleans()):
        return "", None
    words = draw(st.lists(label_words, min_size=1, max_size=3))
    stored = " ".join(words)[:40].strip()
    assume(stored)
    return f"[{draw(spaces)}{stored}{draw(spaces)}]", stored


@st.composite
def numbers(draw: st.DrawFn) -> Fragment:
    value = draw(st.integers(0, 1_000_000))
    written, _ = draw(labels())
    return Fragment(f"{value}{written}", (), lambda _: value, ATOM, 0)


@st.composite
def dice_terms(draw: st.DrawFn) -> Fragment:
    count = draw(st.integers(1, 100))
    sides = draw(st.sampled_from(SIZES))
    exploding = draw(st.booleans())
    written_count = "" if count == 1 and draw(st.booleans()) else str(count)
    written, stored = draw(labels())
    marker = "" if exploding else "n"
    text = f"{written_count}{draw(st.sampled_from('dD'))}{sides}{marker}{draw(spaces)}{written}"
    return Fragment(
        text, ((count, sides, exploding, stored),), lambda values: next(values), ATOM, 0
    )


def parenthesize(child: Fragment, needed: int) -> Fragment:
    if child.strength >= needed:
        return child
    return Fragment(f"({child.text})", child.dice, child.value, ATOM, child.depth + 1)


def combine(left: Fragment, op: str, right: Fragment, gap: tuple[str, str]) -> Fragment:
    strength = SUM if op in "+-" else PRODUCT
    left, right = parenthesize(left, strength), parenthesize(right, strength + 1)
    apply, left_value, right_value = OPERATIONS[op], left.value, right.value
    return Fragment(
        f"{left.text}{gap[0]}{op}{gap[1]}{right.text}",
        left.dice + right.dice,
        lambda values: apply(left_value(values), right_value(values)),
        strength,
        max(left.depth, right.depth),
    )


def negate(child: Fragment, gap: str) -> Fragment:
    child = parenthesize(child, UNARY)
    child_value = child.value
    return Fragment(
        f"-{gap}{child.text}", child.dice, lambda values: -child_value(values), UNARY, child.depth
    )


def extend(
    children: st.SearchStrategy[Fragment], divisors: st.SearchStrategy[Fragment]
) -> st.SearchStrategy[Fragment]:
    gaps = st.tuples(spaces, spaces)
    return st.one_of(
        st.builds(combine, children, st.sampled_from("+-*"), children, gaps),
        st.builds(combine, children, st.just("/"), divisors, gaps),
        st.builds(negate, children, spaces),
        st.builds(parenthesize, children, st.just(5)),
    )


def non_zero(fragment: Fragment) -> bool:
    return fragment.value(iter(())) != 0


constants = st.recursive(
    numbers(), lambda children: extend(children, children.filter(non_zero)), max_leaves=4
)
expressions = st.recursive(
    numbers() | dice_terms(),
    lambda children: extend(children, constants.filter(non_zero)),
    max_leaves=10,
)


def within_limits(fragment: Fragment) -> bool:
    dice = sum(count for count, _, _, _ in fragment.dice)
    return len(fragment.text) <= 1000 and dice <= 1000 and fragment.depth <= 50


@given(expressions, st.data())
def test_r2_generated_notation_parses_and_evaluates_as_written(
    fragment: Fragment, data: st.DataObject
) -> None:
    assume(within_limits(fragment))
    expression = parse(fragment.text)
    assert [(t.count, t.sides, t.exploding, t.label) for t in expression.terms] == list(
        fragment.dice
    )
    assert [t.term for t in expression.terms] == list(range(len(fragment.dice)))
    values = data.draw(st.lists(st.integers(-50, 2000), min_size=len(fragment.dice)))
    expected = fragment.value(iter(values))
    assert evaluate(expression.root, dict(enumerate(values))) == expected


@given(expressions)
def test_r2_format_expression_round_trips_to_an_equal_tree(fragment: Fragment) -> None:
    assume(within_limits(fragment))
    parsed = parse(fragment.text)
    canonical = format_expression(parsed)
    reparsed = parse(canonical)
    assert shape(reparsed.root) == shape(parsed.root)
    assert format_expression(reparsed) == canonical


def test_r1_digits_other_than_ascii_are_not_read_as_a_die_size() -> None:
    with pytest.raises(DiceNotationError, match="expected a die size after 'd'"):
        parse("d\uff12\uff10")  # fullwidth "20"
