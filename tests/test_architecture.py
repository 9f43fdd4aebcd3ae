"""Principles that keep the referee honest (docs/design.md): the engine never imports an agent or
an LLM SDK, and prompt text lives in prompts/, not in engine code."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ARENA = Path(__file__).resolve().parents[1] / "arena"
FORBIDDEN = ("agents", "openai", "anthropic", "langchain", "langchain_core", "httpx")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_engine_modules_import_no_agent_and_no_sdk() -> None:
    # The CLI and its browser counterpart (``arena serve``) are the places that wire agents to the referee.
    offenders = {}
    for path in ARENA.rglob("*.py"):
        if {"cli", "web"} & set(path.relative_to(ARENA).parts):
            continue
        bad = imported_modules(path) & set(FORBIDDEN)
        if bad:
            offenders[str(path.relative_to(ARENA))] = sorted(bad)
    assert not offenders, offenders


def test_playing_a_game_loads_no_sdk() -> None:
    code = (
        "import sys\n"
        "from arena.engine import new_game\n"
        "from arena.referee import play_sync\n"
        "g = new_game('std-12-guard', seed=1)\n"
        "print(','.join(m for m in ('openai', 'anthropic', 'langchain_core') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# ---- the day's flow has one writer ----------------------------------------------------------------
ROOT = ARENA.parent
FLOW_WRITER = ARENA / "rules" / "cycle.py"  # the only module that writes game.flow's fields
FLOW_MAKER = ARENA / "engine.py"  # makes the record (``self.flow = FlowState()``) and nothing else


def flow_fields() -> frozenset[str]:
    from dataclasses import fields

    from arena.flow import FlowState

    return frozenset(f.name for f in fields(FlowState))


def flow_writes(source: str, names: frozenset[str]) -> list[str]:
    """Each place in ``source`` that writes a flow field or replaces the record, as ``line: text``.

    Assignments (plain, augmented, annotated, unpacking, loop and ``with`` targets, ``del``) to an
    attribute named like a FlowState field, on any object (so an alias ``f = game.flow`` does not hide
    one), assignments to an attribute ``flow``, and setattr/delattr naming a field or given a ``flow``."""
    tree = ast.parse(source)
    found: list[str] = []

    def targets(node: ast.AST) -> list[ast.expr]:
        if isinstance(node, ast.Assign):
            return list(node.targets)
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            return [node.target]
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            return [node.target]
        if isinstance(node, (ast.With, ast.AsyncWith)):
            return [i.optional_vars for i in node.items if i.optional_vars is not None]
        if isinstance(node, ast.Delete):
            return list(node.targets)
        return []

    def mentions_flow(node: ast.AST) -> bool:
        return any(isinstance(n, ast.Attribute) and n.attr == "flow" for n in ast.walk(node))

    def leaves(target: ast.expr) -> list[ast.expr]:  # the names an unpacking assigns to
        if isinstance(target, (ast.Tuple, ast.List)):
            return [leaf for elt in target.elts for leaf in leaves(elt)]
        return leaves(target.value) if isinstance(target, ast.Starred) else [target]

    for node in ast.walk(tree):
        if any(isinstance(t, ast.Attribute) and (t.attr in names or t.attr == "flow")
               for target in targets(node) for t in leaves(target)):
            found.append(f"{node.lineno}: {ast.unparse(node).splitlines()[0]}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
            named = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if any(n in names for n in named) or any(mentions_flow(a) for a in node.args[:1]):
                found.append(f"{node.lineno}: {ast.unparse(node)}")
    return sorted(found, key=lambda w: int(w.split(":")[0]))


def test_flow_scanner_finds_every_form_of_write() -> None:
    names = flow_fields()
    snippet = (
        "game.flow.batch_counter += 1\n"
        "game.flow.election_due = True\n"
        "f = game.flow\n"
        "f.day_silenced = True\n"
        "x, f.last_words_pool = 1, 2\n"
        "setattr(game.flow, name, 3)\n"
        "setattr(f, 'phases_without_death', 0)\n"
        "game.flow = FlowState()\n"
        "print(game.flow.batch_counter, f.election_due)\n"  # reads are fine
        "other.batch = 1\n"
    )
    assert [w.split(":")[0] for w in flow_writes(snippet, names)] == ["1", "2", "4", "5", "6", "7", "8"]


def test_only_the_phase_cycle_writes_the_flow() -> None:
    """The day's flow has one owner, arena/rules/cycle.py (docs/design.md): the other rules ask it, return
    values to it or raise a flow exception. FlowState's fields are immutable values (ints, bools, tuples)
    in a slotted record, so an assignment is the only way to change one."""
    names = flow_fields()
    offenders = {}
    for path in sorted([*ARENA.rglob("*.py"), *(ROOT / "agents").rglob("*.py")]):
        if path == FLOW_WRITER:
            continue
        writes = flow_writes(path.read_text(encoding="utf-8"), names)
        if path == FLOW_MAKER:
            writes = [w for w in writes if not w.endswith("self.flow = FlowState()")]
        if writes:
            offenders[str(path.relative_to(ROOT))] = writes
    assert not offenders, f"only arena/rules/cycle.py writes the flow: {offenders}"
    assert flow_writes(FLOW_WRITER.read_text(encoding="utf-8"), names), "the scanner sees cycle.py's own writes"


def _rule_modules_imported(path: Path) -> set[str]:
    """The ``arena.rules`` modules a rule module imports, lazily inside functions too."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "arena.rules":
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("arena.rules."):
            names.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            names.update(a.name.split(".")[2] for a in node.names if a.name.startswith("arena.rules."))
    return names


def test_no_rule_module_imports_a_role_module() -> None:
    """#18: a role is one module that declares itself. Rule modules (role modules and generic steps alike)
    never import a role module: they ask the registry (hooks on each card's RoleSpec, records read through
    ``state.record``) instead, so adding or removing a role touches no other rule module."""
    from arena.rules.registry import _role_modules
    import importlib

    rules = ARENA / "rules"
    role_modules = {name for name in _role_modules()
                    if any(hasattr(importlib.import_module(f"arena.rules.{name}"), attr) for attr in ("SPEC", "SPECS"))}
    assert {"witch", "idiot", "elder", "wolves", "cupid"} <= role_modules
    offenders = {path.stem: sorted((_rule_modules_imported(path) & role_modules) - {path.stem})
                 for path in sorted(rules.glob("*.py"))}
    offenders = {name: bad for name, bad in offenders.items() if bad}
    assert not offenders, offenders
