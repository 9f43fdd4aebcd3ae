"""Synthetic games drawn from the rating model itself, with planted skills: known answers for tests
and a workload for benchmarks that needs no engine."""

from __future__ import annotations

import numpy as np

from arena.evaluate.records import GameRecord, SeatRecord, side_of

STD_12 = ["seer", "witch", "hunter", "guard", "villager", "villager", "villager", "villager",
          "werewolf", "werewolf", "werewolf", "werewolf"]


def synthetic_games(
    skills: dict[str, float],
    n_games: int,
    *,
    seed: int,
    board: str = "std-12-guard",
    deck: list[str] | None = None,
    board_term: float = 0.0,
    role_skills: dict[tuple[str, str], float] | None = None,
) -> list[GameRecord]:
    """Games where each seat's agent is drawn uniformly from ``skills`` and the deck is shuffled.

    The village wins with probability sigmoid(board_term + sum good theta - sum wolf theta), where
    theta[a, r] = skills[a] + role_skills.get((a, r), 0).
    """
    rng = np.random.default_rng(seed)
    deck = list(deck or STD_12)
    names = sorted(skills)
    role_skills = role_skills or {}
    games = []
    for g in range(n_games):
        roles = [deck[i] for i in rng.permutation(len(deck))]
        agents = [names[i] for i in rng.integers(0, len(names), size=len(deck))]
        eta = board_term
        for agent, role in zip(agents, roles):
            theta = skills[agent] + role_skills.get((agent, role), 0.0)
            eta += theta if side_of(role) == "good" else -theta
        good_won = rng.random() < 1.0 / (1.0 + np.exp(-eta))
        games.append(
            GameRecord(
                game_id=f"syn-{g:06d}",
                board=board,
                winner="village" if good_won else "wolves",
                seats=tuple(
                    SeatRecord(seat=i + 1, agent=a, role=r, side=side_of(r)) for i, (a, r) in enumerate(zip(agents, roles))
                ),
                seed=g,
            )
        )
    return games


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + float(np.exp(-x)))


def synthetic_mixed_deals(
    skills: dict[str, float],
    deals: int,
    *,
    seed: int,
    board: str = "std-12-guard",
    deck: list[str] | None = None,
    board_term: float = 0.0,
    deal_sd: float = 0.0,
    realise: bool = True,
) -> list[GameRecord] | list[tuple[GameRecord, float]]:
    """Mixed seating as ``arena bench`` plays it: each deal shuffles the deck once and is played once per
    rotation (in rotation j seat s plays for entry (s - 1 + j) mod k), so every entry holds every card of
    the deal once. ``deal_sd`` adds a per-deal shift to the village's logit, shared by the deal's
    rotations (some deals favour one side whoever plays them). With ``realise=False`` each game comes
    with its village win probability instead of a drawn outcome (for computing a design's truth)."""
    rng = np.random.default_rng(seed)
    deck = list(deck or STD_12)
    names = sorted(skills)
    k = len(names)
    out: list = []
    for d in range(deals):
        roles = [deck[i] for i in rng.permutation(len(deck))]
        shift = float(rng.normal(0.0, deal_sd)) if deal_sd > 0 else 0.0
        for j in range(k):
            agents = [names[(s + j) % k] for s in range(len(deck))]
            eta = board_term + shift
            for agent, role in zip(agents, roles):
                eta += skills[agent] if side_of(role) == "good" else -skills[agent]
            p = _sigmoid(eta)
            good_won = bool(rng.random() < p) if realise else p >= 0.5
            record = GameRecord(
                game_id=f"syn-d{d:05d}-rot{j}", board=board, winner="village" if good_won else "wolves",
                seats=tuple(SeatRecord(seat=i + 1, agent=a, role=r, side=side_of(r))
                            for i, (a, r) in enumerate(zip(agents, roles))),
                seed=d)
            out.append(record if realise else (record, p))
    return out
