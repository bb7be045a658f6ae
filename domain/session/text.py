"""The text a session accepts: names, titles, labels, reasons, salts, ids and their limits.

Everything here ends up in the log for good and on other people's terminals, so text
carries no control characters (a newline, a tab, an ESC that starts a terminal escape
sequence) and no bidirectional overrides that reorder what a reader sees; each field has
a limit. Member names are stricter: they are normalised (NFKC, spaces collapsed and
trimmed) and may hold no invisible character at all, so that two members cannot look
the same while being different names.
"""

from __future__ import annotations

import unicodedata

from diceledger.domain.errors import DiceNotationError, InvalidInputError

MAX_TEXT = 500  # names, titles, reasons, notes, client seeds
MAX_LABEL = 80  # labels of a roll and of its advantage or ease sources, a DC's origin
MAX_SALT = 200
MAX_ACTION_ID = 100
MAX_AGAINST = 200
MAX_SESSION_ID = 200  # the store's width for a stream id

# Categories no text needs: controls (C0, DEL, C1), line and paragraph separators,
# surrogates. Private-use and unassigned code points are refused in names only.
_NEVER = frozenset({"Cc", "Zl", "Zp", "Cs"})
_NOT_IN_NAMES = _NEVER | {"Cf", "Co", "Cn"}
# Bidirectional embeddings, overrides and isolates (format characters, allowed in free
# text otherwise: a zero-width joiner is part of many emoji).
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Characters that show as nothing although they are letters, marks or symbols (Unicode's
# default-ignorable code points outside the format category, and the blank braille cell).
_INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u2800\u3164\uffa0"
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))
    + "".join(chr(c) for c in range(0xE0100, 0xE01F0))
)


def _offending(text: str, categories: frozenset[str], names: bool) -> str | None:
    for char in text:
        if unicodedata.category(char) in categories or char in _BIDI_CONTROLS:
            return char
        if names and char in _INVISIBLE:
            return char
    return None


def _refuse(what: str, char: str) -> InvalidInputError:
    return InvalidInputError(f"{what} may not hold the character U+{ord(char):04X}")


def check_text(value: str, what: str, limit: int, *, required: bool = False) -> None:
    """Refuse text over ``limit`` characters or with a control or bidi character."""
    if required and not value.strip():
        raise InvalidInputError(f"{what} needs 1 to {limit} characters, not blank")
    if len(value) > limit:
        raise InvalidInputError(f"{what} may have at most {limit} characters, not {len(value)}")
    char = _offending(value, _NEVER, names=False)
    if char is not None:
        raise _refuse(what, char)


def check_optional(value: str | None, what: str, limit: int) -> None:
    """Check text that may be absent (None)."""
    if value is not None:
        check_text(value, what, limit)


def check_expression(expression: str) -> None:
    """Refuse an expression holding anything but printable characters and plain spaces.

    The notation reads any blank between its terms, so a newline, a tab or a no-break
    space would pass and then split or disguise the one line the roll is shown on. Only a
    new roll's expression is checked: the log's earlier ones are read as they were.
    """
    for column, char in enumerate(expression, start=1):
        if not char.isprintable() and char != " ":
            name = unicodedata.name(char, "a control character")
            raise DiceNotationError(
                f"an expression may hold plain spaces only, not U+{ord(char):04X} ({name})",
                column,
            )


def normalize_name(name: str) -> str:
    """Return a member name as the session keeps it: NFKC, one space between words.

    Only spaces are collapsed: a tab or a newline stays, for ``check_name`` to refuse.
    """
    return " ".join(part for part in unicodedata.normalize("NFKC", name).split(" ") if part)


def check_name(name: str, what: str = "a member's name") -> None:
    """Refuse a name that is blank, too long, not normalised, invisible in part, or a dot."""
    if not name.strip() or len(name) > MAX_TEXT:
        raise InvalidInputError(f"{what} needs 1 to {MAX_TEXT} characters, not blank")
    # A name is written in the links that manage a member (.../members/NAME/revoke), and
    # a browser collapses a "." or ".." there however it is encoded.
    if name in (".", ".."):
        raise InvalidInputError(f"{what} cannot be '.' or '..' (a link cannot carry it)")
    char = _offending(name, _NOT_IN_NAMES, names=True)
    if char is not None:
        raise _refuse(what, char)
    if name != normalize_name(name):
        raise InvalidInputError(f"{what} {name!r} is not normalised (NFKC, single spaces)")
