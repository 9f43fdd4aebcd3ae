"""YAML written by users (tournament configs, scenarios, --rule values, keys files): read safely.

``yaml.safe_load`` builds only plain data, but it expands aliases: nine levels of ``&a [*b, *b, ...]``
(a "billion laughs") make one short roster entry grow without bound in memory. Configs never need
aliases, so an alias is refused with the place it is at; so is a text over :data:`MAX_YAML_CHARS`.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_YAML_CHARS = 1_000_000


class _NoAliasLoader(yaml.SafeLoader):
    def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not accepted here: write the value out", event.start_mark)
        return super().compose_node(parent, index)


def load_user_yaml(text: str) -> Any:
    """The data in ``text``; :class:`yaml.YAMLError` for bad YAML, an alias or an oversized text."""
    if len(text) > MAX_YAML_CHARS:
        raise yaml.YAMLError(f"{len(text):,} characters, more than a config may hold ({MAX_YAML_CHARS:,})")
    return yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 - a SafeLoader subclass
