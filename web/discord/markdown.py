"""Discord markdown: escape what people typed, mark dice, and shorten within the limits.

Names, labels and reasons are text anyone at the table chose. Every markdown character in
them is escaped with a backslash (Discord shows ``\\*`` as ``*``), an ``@`` gets a
zero-width space after it so ``@everyone`` is never a mention even to the eye, and line
breaks and invisible control characters become spaces. (Messages also carry
``allowed_mentions: {parse: []}``, so nothing pings whatever the text says.)

Dice lines are rendered by the domain with private-use marker characters around counted
and discarded dice; ``finish`` turns them into ``**bold**`` and ``~~struck~~`` only after
escaping, so a label can never open or close the formatting of a die.
"""

from __future__ import annotations

import unicodedata

KEPT_OPEN, KEPT_CLOSE = "\ue000", "\ue001"
DROPPED_OPEN, DROPPED_CLOSE = "\ue002", "\ue003"
MARKERS = {KEPT_OPEN: "**", KEPT_CLOSE: "**", DROPPED_OPEN: "~~", DROPPED_CLOSE: "~~"}
OPENERS = {KEPT_OPEN, DROPPED_OPEN}
# Inline formatting, and what starts a quote, heading, list, link, mention or autolink.
SPECIAL = frozenset("\\*_~`|>#-[]<:")
ZERO_WIDTH_SPACE = "\u200b"
ELLIPSIS = "…"
INVISIBLE = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


class MarkedStyle:
    """The domain renderer's style for Discord: markers that ``finish`` turns to markdown."""

    def kept(self, text: str) -> str:
        """Mark a counted die of a pool."""
        return f"{KEPT_OPEN}{text}{KEPT_CLOSE}"

    def dropped(self, text: str) -> str:
        """Mark a die that does not count."""
        return f"{DROPPED_OPEN}{text}{DROPPED_CLOSE}"


MARKED = MarkedStyle()


def escape(text: str) -> str:
    """Return user text safe to show: no formatting, no mention, one line."""
    return _escaped(text, keep_markers=False)


def escape_marked(text: str) -> str:
    """Escape a rendered dice line, keeping its die markers for ``finish``."""
    return _escaped(text, keep_markers=True)


def _escaped(text: str, keep_markers: bool) -> str:
    out: list[str] = []
    for char in text:
        category = unicodedata.category(char)
        if char in MARKERS and keep_markers:
            out.append(char)
        elif category in INVISIBLE or category == "Co" or char.isspace():
            out.append(" ")
        elif char in SPECIAL:
            out.append("\\" + char)
        elif char == "@":
            out.append("@" + ZERO_WIDTH_SPACE)
        else:
            out.append(char)
    return " ".join("".join(out).split())


def clip(text: str, limit: int) -> str:
    """Return ``text`` cut to ``limit`` characters with an ellipsis (before escaping)."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + ELLIPSIS


def finish(marked: str) -> str:
    """Turn the die markers into markdown."""
    for marker, markdown in MARKERS.items():
        marked = marked.replace(marker, markdown)
    return marked


def shown_length(marked: str) -> int:
    """Return how long ``marked`` is once finished (each marker becomes two characters)."""
    return len(marked) + sum(1 for char in marked if char in MARKERS)


def shorten(marked: str, budget: int) -> str:
    """Cut an escaped, marked line at a space outside any marked die so it fits ``budget``.

    The cut ends in an ellipsis; formatting always stays closed, and an escape is never
    split from the character it escapes (a space is never escaped).
    """
    if shown_length(marked) <= budget:
        return marked
    room = budget - len(" " + ELLIPSIS)
    best = 0
    depth = 0
    length = 0
    for index, char in enumerate(marked):
        if char == " " and depth == 0 and length <= room:
            best = index
        if char in MARKERS:
            depth += 1 if char in OPENERS else -1
            length += 2
        else:
            length += 1
        if length > room:
            break
    return (marked[:best] + " " + ELLIPSIS) if best else ELLIPSIS
