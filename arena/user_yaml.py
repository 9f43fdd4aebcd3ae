"""Files written by users (tournament configs, scenarios, bench suites, --rule values, keys files):
read safely, and every fault named with the file and line.

``yaml.safe_load`` builds only plain data, but it expands aliases: nine levels of ``&a [*b, *b, ...]``
(a "billion laughs") make one short roster entry grow without bound in memory. Configs never need
aliases, so an alias is refused with the place it is at; so is a text over :data:`MAX_YAML_CHARS`.
Both parsers recurse once per nesting level (200,000 ``[`` overflowed Python's stack): the YAML
composer counts its depth before it recurses, and JSON text is scanned for its depth before it is
parsed; past :data:`MAX_NESTING` levels the file is refused. Bytes that are not UTF-8 are named
with their offset and line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

MAX_YAML_CHARS = 1_000_000
#: Nesting levels a user file may have (a tournament config needs about six).
MAX_NESTING = 64


class UserFileError(ValueError):
    """A user file cannot be read as data; the message starts with ``FILE:LINE:`` where a line is known."""


class _SafeUserLoader(yaml.SafeLoader):
    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not accepted here: write the value out", event.start_mark)
        if self._depth >= MAX_NESTING:
            raise yaml.composer.ComposerError(
                None, None, f"nested more than {MAX_NESTING} levels deep", self.peek_event().start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_user_yaml(text: str) -> Any:
    """The data in ``text``; :class:`yaml.YAMLError` for bad YAML, an alias, nesting past
    :data:`MAX_NESTING` or an oversized text."""
    if len(text) > MAX_YAML_CHARS:
        raise yaml.YAMLError(f"{len(text):,} characters, more than a config may hold ({MAX_YAML_CHARS:,})")
    return yaml.load(text, Loader=_SafeUserLoader)  # noqa: S506 - a SafeLoader subclass


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_JSON_BRACKET = re.compile(r"[\[\]{}\n]")


def json_nesting_problem(text: str, limit: int = MAX_NESTING) -> str | None:
    """"line N: nested more than LIMIT levels deep" when ``text`` nests past ``limit``, counted
    without parsing (strings blanked first, their newlines kept)."""
    blank = _JSON_STRING.sub(lambda m: "\n" * m.group().count("\n"), text)
    depth, line = 0, 1
    for m in _JSON_BRACKET.finditer(blank):
        c = m.group()
        if c == "\n":
            line += 1
        elif c in "[{":
            depth += 1
            if depth > limit:
                return f"line {line}: nested more than {limit} levels deep"
        else:
            depth -= 1
    return None


def load_user_json(text: str) -> Any:
    """The data in JSON ``text``; :class:`UserFileError` (``line N: ...``) for bad JSON or deep nesting."""
    problem = json_nesting_problem(text)
    if problem is not None:
        raise UserFileError(problem)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserFileError(f"line {exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno})") from None


def read_user_text(path: Path) -> str:
    """The file's text; :class:`UserFileError` naming the first byte that is not UTF-8 (its offset and
    line). :class:`OSError` as ``open`` raises it."""
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise UserFileError(f"{path}:{line}: byte {exc.start} (0x{raw[exc.start]:02x}) is not UTF-8 text; "
                            "save the file as UTF-8") from None


def load_user_file(path: Path, *, as_json: bool | None = None) -> Any:
    """The data in a user's YAML or JSON file (JSON for ``.json`` unless ``as_json`` says), every
    fault a :class:`UserFileError` starting ``FILE:LINE:``; :class:`OSError` when it cannot be read."""
    return parse_user_text(read_user_text(path), path, as_json=as_json)


def parse_user_text(text: str, path: Path, *, as_json: bool | None = None) -> Any:
    """:func:`load_user_file` for a text already read from ``path``."""
    if as_json if as_json is not None else path.suffix == ".json":
        try:
            return load_user_json(text)
        except UserFileError as exc:
            raise UserFileError(f"{path}:{str(exc).removeprefix('line ')}") from None
    try:
        return load_user_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        what = getattr(exc, "problem", None) or str(exc)
        raise UserFileError(f"{where}: not valid YAML: {what}") from None
