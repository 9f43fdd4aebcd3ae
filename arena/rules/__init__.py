"""Rule functions, one module per concern. Role behaviour lives in one module per role.

Modules here read the game state and the switches, and either compute a rule (pure functions) or,
for steps that ask players, are generators driven by :class:`arena.engine.Game`: they ``yield from
game.ask(...)`` and ``game.emit(...)`` events. Nothing here does I/O or knows about agents.
"""
