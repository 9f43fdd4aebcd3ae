"""The test-only lycan (arena/rules/lycan.py, board test-lycan-9): a village card the seer reads as a wolf."""

from __future__ import annotations

from arena.engine import Game, GameSetup
from arena.events import SeerResult
from arena.rules.victory import camp_of
from arena.types import Camp

DEAL = ["lycan", "witch", "seer", "werewolf", "werewolf", "villager", "villager", "villager", "hunter"]


def _seer_reads(target: int) -> str:
    game = Game(GameSetup(preset="test-lycan-9", seed=0, deal=DEAL))
    while not game.over and not any(isinstance(e, SeerResult) for e in game.log):
        game.submit({r.id: target if r.kind == "seer_check" else r.default for r in game.pending()})
    result = next(e for e in game.log if isinstance(e, SeerResult))
    assert result.target == target
    return result.result


def test_the_seer_reads_the_lycan_as_a_wolf_though_he_is_on_the_village_side() -> None:
    """R108 with the card's own reading: the lycan (seat 1) reads "wolf", an ordinary villager "good"."""
    assert _seer_reads(1) == "wolf"
    assert _seer_reads(6) == "good"
    game = Game(GameSetup(preset="test-lycan-9", seed=0, deal=DEAL))
    assert camp_of(game.state, 1) == Camp.VILLAGE
