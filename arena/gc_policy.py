"""How the arena's own processes set CPython's cyclic garbage collector, and why.

A game keeps everything it makes (the event log, the decision records) until it ends; then
reference counting frees all of it at once. Bot games leave no reference cycles behind
(``gc.get_stats()`` reports nothing collected over thousands of them). With CPython's default
young-generation threshold (a collection every 700 net container allocations) the cyclic
collector still walks each game's log once or twice while the game runs: about 7% of a bot
game's machine instructions (docs/performance.md), spent finding nothing. With a threshold above
what a game allocates, most games are over, and freed, before the collector looks at them.

The ``arena`` command, the tournament's worker processes and the benchmarks call
:func:`relax_young_collections` once; importing the package changes nothing, so a program that
embeds the arena keeps its own setting (and may call the function itself).
"""

from __future__ import annotations

import gc

#: The young-generation threshold the arena's processes use (CPython's default is 700). A std-12
#: bot game allocates about 900 long-lived containers; a tournament's worker plays many in a row.
YOUNG_GENERATION_THRESHOLD = 10_000


def relax_young_collections() -> None:
    """Raise this process's young-generation threshold to :data:`YOUNG_GENERATION_THRESHOLD`.

    Never lowers it, keeps the older generations' thresholds, and leaves a threshold of 0 (automatic
    collection switched off) alone."""
    young, *older = gc.get_threshold()
    if 0 < young < YOUNG_GENERATION_THRESHOLD:
        gc.set_threshold(YOUNG_GENERATION_THRESHOLD, *older)
