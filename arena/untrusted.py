"""Text that players wrote (a model's speech, a human's typing), made safe to show.

A speech goes to terminals (narration, the human seat, the live view) and into other seats'
prompts. In both places it must stay what it is: one quoted line by one player. So every control
character goes (C0, DEL, C1 including NEL U+0085, the Unicode line and paragraph separators and the
bidirectional overrides): an escape sequence could clear a screen, retitle a window or write the
clipboard (OSC 52), and a line break could start a line that looks like the referee's.
"""

from __future__ import annotations

import re

#: Line breaks of every kind: shown as a pilcrow so a speech stays on one visible line.
_BREAKS = re.compile(r"\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
#: Every other control character, and the bidirectional embedding/override/isolate marks that
#: reorder what a terminal shows.
_CONTROLS = re.compile(r"[\x00-\x09\x0e-\x1b\x1f\x7f-\x84\x86-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: Controls in text the arena composed itself, whose own line breaks are kept.
_CONTROLS_BUT_NEWLINE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def one_line(text: object) -> str:
    """A player's text as one visible line without control characters (a tab is a space)."""
    s = _BREAKS.sub(" ¶ ", str(text))
    return _CONTROLS.sub(lambda m: " " if m.group() == "\t" else "", s)


def printable(text: str) -> str:
    """A line the arena composed, with any control character that came in through a player's
    field removed; its own line breaks stay."""
    return _CONTROLS_BUT_NEWLINE.sub("", text)
