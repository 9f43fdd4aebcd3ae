"""Agents that sit at the table: built-in bots, LLMs, humans. The engine never imports this package."""
