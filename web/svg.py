"""The parts every chart is drawn with: escaped text, compact numbers, SVG elements.

Every piece of text a chart shows goes through ``escape``, so a player named
``<script>`` stays a name. The documents are well-formed XML, fit to inline in a page
or to serve on their own.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping

Attribute = str | int | float

# Characters XML 1.0 cannot hold at all; a name should never carry them, but a chart must
# stay well-formed whatever it is given.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}


def escape(text: str) -> str:
    """Return text safe inside an SVG element or a quoted attribute."""
    cleaned = _NOT_XML.sub("\ufffd", text)
    return "".join(_ESCAPES.get(char, char) for char in cleaned)


def number(value: float) -> str:
    """Write a coordinate or a figure with at most two decimals and no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def element(tag: str, attributes: Mapping[str, Attribute], content: str = "") -> str:
    """Return one element; ``content`` is markup already escaped (use ``escape`` for text)."""
    written = "".join(
        f' {name}="{escape(value) if isinstance(value, str) else number(value)}"'
        for name, value in attributes.items()
    )
    return f"<{tag}{written}>{content}</{tag}>" if content else f"<{tag}{written}/>"


def text(x: float, y: float, words: str, attributes: Mapping[str, Attribute] | None = None) -> str:
    """Return a text element at (x, y) showing ``words`` (escaped here)."""
    return element("text", {"x": x, "y": y, **(attributes or {})}, escape(words))


def chart_id(kind: str, *parts: str) -> str:
    """Return an element id for a chart, the same for the same inputs, safe in any page."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:12]
    return f"{kind}-{digest}"


def document(
    *, identifier: str, width: int, height: int, title: str, description: str, body: str
) -> str:
    """Return a whole SVG: a titled, described image that a screen reader announces."""
    title_id, description_id = f"{identifier}-title", f"{identifier}-desc"
    attributes: dict[str, Attribute] = {
        "xmlns": "http://www.w3.org/2000/svg",
        "id": identifier,
        "viewBox": f"0 0 {width} {height}",
        "width": width,
        "height": height,
        "role": "img",
        "aria-labelledby": f"{title_id} {description_id}",
        "font-family": "system-ui, sans-serif",
        "font-size": 13,
        "fill": "currentColor",
    }
    content = (
        element("title", {"id": title_id}, escape(title))
        + element("desc", {"id": description_id}, escape(description))
        + body
    )
    return element("svg", attributes, content)
