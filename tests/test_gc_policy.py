"""The garbage-collector setting of the arena's own processes (arena.gc_policy)."""

from __future__ import annotations

import gc
import subprocess
import sys
from typing import Iterator

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.gc_policy import YOUNG_GENERATION_THRESHOLD, relax_young_collections


@pytest.fixture(autouse=True)
def restore_threshold() -> Iterator[None]:
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def test_raises_the_young_threshold_and_keeps_the_older_ones() -> None:
    gc.set_threshold(700, 11, 12)
    relax_young_collections()
    assert gc.get_threshold() == (YOUNG_GENERATION_THRESHOLD, 11, 12)


def test_never_lowers_a_threshold_nor_switches_collection_back_on() -> None:
    gc.set_threshold(50_000, 10, 10)
    relax_young_collections()
    assert gc.get_threshold()[0] == 50_000
    gc.set_threshold(0, 10, 10)  # 0: the program switched automatic collection off
    relax_young_collections()
    assert gc.get_threshold()[0] == 0


def test_importing_the_package_changes_nothing_and_the_command_applies_it() -> None:
    # A fresh interpreter: in this one the modules are imported already.
    code = ("import gc; import arena.engine, arena.referee, arena.tournament, agents.bots; "
            "print(gc.get_threshold()[0])")
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert fresh.stdout.strip() == "700"  # CPython's default, untouched by the imports
    gc.set_threshold(700, 10, 10)
    result = CliRunner().invoke(app, ["presets"])
    assert result.exit_code == 0, result.output
    assert gc.get_threshold()[0] == YOUNG_GENERATION_THRESHOLD


def test_a_bot_game_leaves_no_garbage_cycles() -> None:
    """What the setting rests on: a game's objects are freed by reference counting alone."""
    from agents.bots import RandomBot
    from arena.engine import GameSetup
    from arena.referee import play_sync

    gc.collect()
    gc.disable()
    try:
        for seed in range(5):
            play_sync(GameSetup(preset="std-12-guard", seed=seed), [RandomBot(s, seed) for s in range(1, 13)])
        assert gc.collect() == 0
    finally:
        gc.enable()
