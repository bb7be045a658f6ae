"""User text made safe to show a person: every control or invisible character escaped.

Names, titles, ids and the messages quoting them reach terminals, problem+json details and
pages. A newline would start a line of its own, an ESC move the cursor, a bidirectional
override reorder what a reader sees; escaped as ``\\u202e`` they are seen for what they are.
"""

from __future__ import annotations

import unicodedata

# Controls (newline, tab, ESC, DEL, C1), format characters (bidi overrides, zero-width),
# line and paragraph separators, surrogates, private use and unassigned code points.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def shown(text: object) -> str:
    """Return user text safe to show: every control or invisible character escaped."""
    value = str(text)
    if value.isprintable():
        return value
    return "".join(
        _escaped(char) if unicodedata.category(char) in _HIDDEN else char for char in value
    )


def _escaped(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
