"""How strong is ``bot:heuristic``? Win rates against an all-random table, from both sides.

    python benchmarks/bot_strength.py                      # 1,000 std-12-guard games per matchup
    python benchmarks/bot_strength.py --games 200 --preset std-12-idiot --jobs 2
    python benchmarks/bot_strength.py --games 300 --preset cupid-tucheng-9 --preset cupid-thief-12 \
        --preset advanced-seed003 --jobs 2    # several boards, one table each

Four matchups, each over the same seeds (so the same deals): random vs random, heuristic village
vs random wolves, random village vs heuristic wolves, heuristic vs heuristic. A seat's agent is
picked by the camp of the card it is dealt (a thief or maid who later takes a wolf card, Cupid and
the lovers keep the agent of their dealt card). Prints each result's rate with a Wilson 95%
interval: village, wolves, and on boards with Cupid the lovers camp (a third party).

Acceptance (the bot is "decent"): the heuristic village beats random wolves far more often than a
random village does, and the heuristic wolves beat a random village far more often than random
wolves do; both intervals must clear the random-vs-random rate.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.bots import RandomBot  # noqa: E402
from agents.heuristic import HeuristicBot  # noqa: E402
from arena.actions import Answer  # noqa: E402
from arena.engine import Game, GameSetup  # noqa: E402
from arena.types import is_wolf_card  # noqa: E402

MATCHUPS: dict[str, tuple[str, str]] = {  # name -> (village agent, wolves agent)
    "random vs random": ("random", "random"),
    "heuristic village vs random wolves": ("heuristic", "random"),
    "random village vs heuristic wolves": ("random", "heuristic"),
    "heuristic vs heuristic": ("heuristic", "heuristic"),
}


# ---- agents and the game loop -----------------------------------------------------------------

def make_agent(kind: str, seat: int, seed: int) -> Any:
    if kind == "heuristic":
        return HeuristicBot(seat, seed)
    return RandomBot(seat, seed)


def table_for(preset: str, seed: int, village: str, wolves: str) -> list[Any]:
    """One agent per seat, by the camp of the card the seed deals to it."""
    deal = Game(GameSetup(preset=preset, seed=seed)).state.players
    return [make_agent(wolves if is_wolf_card(p.card) else village, seat, seed) for seat, p in sorted(deal.items())]


def _minimal_play(setup: GameSetup, agents: list[Any]) -> str:
    """A bare synchronous driver (the referee's play_sync does the same, plus transcripts)."""
    from arena.observation import Observation

    game = Game(setup)
    n = game.state.n
    seen: dict[int, list[Any]] = {s: [] for s in range(1, n + 1)}
    shown = {s: 0 for s in range(1, n + 1)}
    routed = 0
    switches = game.rules.switches.model_dump(mode="json")
    while not game.over:
        for event in game.log[routed:]:
            vis = event.visibility
            for s in (range(1, n + 1) if vis.to == "all" else vis.seats if vis.to == "seats" else ()):
                seen[s].append(event)
        routed = len(game.log)
        answers = {}
        for req in game.pending():
            obs = Observation(seat=req.seat, players=n, preset=setup.preset, switches=switches,
                              events=list(seen[req.seat]), new_from=shown[req.seat])
            shown[req.seat] = len(seen[req.seat])
            answer = agents[req.seat - 1].decide_sync(obs, req)
            answers[req.id] = answer.value if isinstance(answer, Answer) else answer  # a bare value is allowed
        game.submit(answers)
    return game.state.winner.value if game.state.winner else "none"


def play_one(preset: str, seed: int, village: str, wolves: str) -> str:
    """The winner of one game ("village", "wolves", "draw")."""
    setup = GameSetup(preset=preset, seed=seed)
    agents = table_for(preset, seed, village, wolves)
    try:
        from arena.referee import play_sync
    except ImportError:  # pragma: no cover
        return _minimal_play(setup, agents)
    return play_sync(setup, agents).winner


def _job(args: tuple[str, int, str, str]) -> str:
    return play_one(*args)


# ---- statistics ----------------------------------------------------------------------------------

def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score 95% interval for k successes out of n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Outcome:
    name: str
    wins: Counter

    @property
    def games(self) -> int:
        return sum(self.wins.values())

    def rate(self, side: str) -> tuple[float, float, float]:
        k, n = self.wins.get(side, 0), self.games
        low, high = wilson(k, n)
        return (k / n if n else 0.0), low, high


def run(preset: str, games: int, seed_base: int, jobs: int, names: list[str],
        progress: Callable[[str], None] | None = None) -> list[Outcome]:
    out = []
    for name in names:
        village, wolves = MATCHUPS[name]
        tasks = [(preset, seed_base + i, village, wolves) for i in range(games)]
        start = time.perf_counter()
        if jobs > 1:
            with Pool(jobs) as pool:
                winners = pool.map(_job, tasks, chunksize=max(1, games // (jobs * 8)))
        else:
            winners = [_job(t) for t in tasks]
        outcome = Outcome(name, Counter(winners))
        out.append(outcome)
        if progress:
            progress(f"{name}: {dict(outcome.wins)} in {time.perf_counter() - start:.1f}s")
    return out


def report(outcomes: list[Outcome]) -> str:
    lovers = any(o.wins.get("lovers") for o in outcomes)  # a lovers column only where the camp ever won
    head = f"{'matchup':<38} {'games':>5}  {'village wins (95% CI)':<26} {'wolves wins (95% CI)':<26} "
    lines = [head + (f"{'lovers wins (95% CI)':<26} " if lovers else "") + "draws"]
    for o in outcomes:
        cells = []
        for side in ("village", "wolves") + (("lovers",) if lovers else ()):
            r, low, high = o.rate(side)
            cells.append(f"{r:6.1%} [{low:6.1%}, {high:6.1%}]    ")
        lines.append(f"{o.name:<38} {o.games:>5}  {''.join(cells)}{o.wins.get('draw', 0)}")
    return "\n".join(lines)


def verdict(outcomes: list[Outcome]) -> list[str]:
    """The acceptance checks, when the needed matchups were run."""
    by = {o.name: o for o in outcomes}
    base = by.get("random vs random")
    checks = []
    if base is None:
        return checks
    for name, side in (("heuristic village vs random wolves", "village"),
                       ("random village vs heuristic wolves", "wolves")):
        if name in by:
            _, base_low, base_high = base.rate(side)
            rate, low, _ = by[name].rate(side)
            ok = low > base_high
            checks.append(f"{'PASS' if ok else 'FAIL'}: {name}: {side} win {rate:.1%} (low {low:.1%}) vs random "
                          f"{base.rate(side)[0]:.1%} (high {base_high:.1%})")
    return checks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per matchup (default 1000)")
    parser.add_argument("--preset", action="append",
                        help="board preset (repeatable; default std-12-guard)")
    parser.add_argument("--seed-base", type=int, default=0, help="seeds are seed_base .. seed_base+games-1")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--matchup", action="append", choices=list(MATCHUPS), help="run only these (repeatable)")
    args = parser.parse_args(argv)
    names = args.matchup or list(MATCHUPS)
    ok = True
    for preset in args.preset or ["std-12-guard"]:
        print(f"preset {preset}, {args.games} games per matchup, seeds {args.seed_base}.."
              f"{args.seed_base + args.games - 1}", flush=True)
        outcomes = run(preset, args.games, args.seed_base, args.jobs, names,
                       progress=lambda s: print("  " + s, file=sys.stderr, flush=True))
        print(report(outcomes))
        checks = verdict(outcomes)
        for line in checks:
            print(line)
        ok = ok and all(c.startswith("PASS") for c in checks)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
