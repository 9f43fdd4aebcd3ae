"""The Werewolf (狼人杀) arena: a deterministic referee for Chinese table rules."""

__version__ = "0.1.0"
