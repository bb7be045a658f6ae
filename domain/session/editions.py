"""Editions of the request rules: which rules a roll request was decided under.

A rule that refuses what an older release accepted would make that release's honest logs
fail verification, since verify decides every request again. So each request records the
edition it was decided under, and the rules added since apply only to requests of their
edition or later. A session never goes back to an older edition.

1. Every request before December 2026.
2. Each side of an opposed check is its own (R6): the requester of a check against another
   member names that member's MODs by reference, never as numbers; gives that side no
   Advantage, Disadvantage, Eased or Hindered and no dice but the one d20 unless they are
   a GM; and types in only their own side's faces.
"""

from __future__ import annotations

FIRST = 1
SIDES_OWN = 2
CURRENT = SIDES_OWN
KNOWN = frozenset({FIRST, SIDES_OWN})
