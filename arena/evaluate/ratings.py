"""Ratings of roster entries from finished games.

Role-aware team Bradley-Terry (the primary rating)
--------------------------------------------------
For game g on board b with the village winning (y_g = 1), the wolves winning (y_g = 0) or a draw
(y_g = 1/2)::

    logit P(y_g = 1) = beta[b] + sum_{good seats i} theta[a_i, r_i] - sum_{wolf seats j} theta[a_j, r_j]
    theta[a, r]      = skill[a] + delta[a, r]

``beta[b]`` is the board's side balance; ``skill[a]`` is the agent's pooled skill (the leaderboard
number) and ``delta[a, r]`` its role-specific adjustment, so a role an agent seldom played is shrunk
towards its overall skill instead of being estimated from a handful of games. Both sides' skills
enter with a sign, so "skill" means "helps its own side win" whatever the side.

The fit is penalised maximum likelihood (a Gaussian prior, i.e. an L2 penalty): weak on
``skill`` and ``beta`` and firmer on ``delta``. Without it the model is not identifiable (adding a
constant to every skill is absorbed by ``beta`` on a board with unequal sides and undetermined on
one with equal sides) and a perfectly separated agent would run off to infinity. What the data
identify are differences: between agents' skills, and between agents within one role (a board
deals exactly one seer per game, so a shift common to every seer is the board term's). Read the
role table down a role's column, not across roles. Units are logits:
a skill gap of 0.1 per seat across 4 seats moves P(win) by about 10 points near 50%.

Confidence intervals come from a nonparametric bootstrap over whole deals (a game and its mirrors: the
unit that is actually independent), drawn from a seeded ``numpy.random.Generator``: the estimate
± t(deals - 1) x the bootstrap standard error (a studentized interval; the percentile one under-covered). Games are put in a
canonical order first, so the output does not depend on the order they were given in.

OpenSkill (a descriptive second opinion, not the leaderboard)
-------------------------------------------------------------
``openskill``'s Plackett-Luce model, updated game by game. It is incremental, so one pass depends on
the order of the games; the reported μ is the mean over several seeded shuffles (with its spread).
μ drifts with board balance, so it is shown against the field's mean μ, and σ is OpenSkill's own
parameter, not a confidence interval. The teams are the good seats and the wolf seats; an agent
holding several seats gets the mean of its seats' updates.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from scipy.optimize import minimize

try:  # BLAS threads only add overhead on these small matrices (and fight with concurrent games).
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover - optional
    threadpool_limits = None

from arena.evaluate.records import GameRecord
from arena.evaluate.stats import (
    Interval,
    games_to_separate,
    make_rng,
    monotone_ranks,
    clustered_rate_interval,
    ranks_by_pairwise_tests,
)


class RatingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    #: L2 penalties (prior precisions): 1/variance of the Gaussian prior on each parameter group.
    prior_skill: float = Field(0.1, gt=0)
    prior_role: float = Field(1.0, gt=0)
    prior_board: float = Field(1e-4, gt=0)  # nearly free: the intercept is identified by the data
    n_resamples: int = Field(1000, ge=0)
    seed: int = 0
    level: float = Field(0.95, gt=0, lt=1)


class AgentRating(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: str
    skill: Interval
    rank: int
    games: int
    seats: int


class RoleSkill(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: str
    role: str
    skill: Interval
    seats: int


class BoardTerm(BaseModel):
    model_config = ConfigDict(extra="forbid")

    board: str
    beta: Interval
    p_good_at_zero_skill: float
    games: int


class PowerLine(BaseModel):
    """How many games would separate the closest adjacent pair on the leaderboard."""

    model_config = ConfigDict(extra="forbid")

    higher: str
    lower: str
    gap: float
    se: float = Field(description="sum of the two bootstrap standard errors")
    games_now: int
    games_needed: int | None
    separated: bool


class BTRatings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agents: list[AgentRating]
    roles: list[RoleSkill]
    boards: list[BoardTerm]
    games_used: int
    games_skipped: int = Field(description="games with no village/wolves/draw outcome (abandoned, lovers...)")
    n_resamples: int
    seed: int
    level: float
    power: PowerLine | None = None
    converged: bool = True
    saturated: list[str] = Field(default_factory=list, description=(
        "entries whose side won every game or none: their interval reflects the prior, not the data"))
    rank_comparisons: int = Field(0, description=(
        "pairwise tests behind the ranks: an entry ranks below another only when the game-bootstrap "
        "difference of their skills is significant after Holm's correction over this many pairs"))


@dataclass
class _Design:
    """The games as a dense design matrix; columns are [boards | skills | (agent, role) deltas]."""

    boards: list[str]
    agents: list[str]
    pairs: list[tuple[str, str]]
    x: np.ndarray  # (distinct rows, params)
    y: np.ndarray  # (distinct rows,)
    group: np.ndarray  # (games,): the distinct row each game maps to
    penalty: np.ndarray  # (params,)
    games: list[GameRecord]

    def row_weights(self, game_weights: np.ndarray) -> np.ndarray:
        return np.bincount(self.group, weights=game_weights, minlength=len(self.y))

    @property
    def n_boards(self) -> int:
        return len(self.boards)

    @property
    def n_agents(self) -> int:
        return len(self.agents)


def canonical_games(games: Sequence[GameRecord]) -> list[GameRecord]:
    """The games in :meth:`GameRecord.sort_key` order. Sorted by the key's leading fields first and
    by the whole key only where those tie (game ids are nearly always distinct): the same order,
    without a full key with its seat tuples held for every game at once."""
    ordered = sorted(games, key=_leading_key)
    out: list[GameRecord] = []
    i = 0
    while i < len(ordered):
        j = i + 1
        lead = _leading_key(ordered[i])
        while j < len(ordered) and _leading_key(ordered[j]) == lead:
            j += 1
        out.extend(ordered[i:j] if j == i + 1 else sorted(ordered[i:j], key=GameRecord.sort_key))
        i = j
    return out


def _leading_key(game: GameRecord) -> tuple[str, str, int, str]:
    return game.game_id, game.board, game.seed if game.seed is not None else -1, game.winner


def _design(games: Sequence[GameRecord], cfg: RatingConfig) -> tuple[_Design, int]:
    ordered = canonical_games(games)
    usable = [g for g in ordered if g.good_won is not None]
    skipped = len(ordered) - len(usable)
    boards = sorted({g.board for g in usable})
    agents = sorted({s.agent for g in usable for s in g.seats})
    pairs = sorted({(s.agent, s.role) for g in usable for s in g.seats})
    b_ix = {b: i for i, b in enumerate(boards)}
    a_ix = {a: len(boards) + i for i, a in enumerate(agents)}
    p_ix = {p: len(boards) + len(agents) + i for i, p in enumerate(pairs)}
    n_params = len(boards) + len(agents) + len(pairs)
    x = np.zeros((len(usable), n_params))
    y = np.zeros(len(usable))
    for row, game in enumerate(usable):
        x[row, b_ix[game.board]] = 1.0
        for seat in game.seats:
            sign = 1.0 if seat.side == "good" else -1.0
            x[row, a_ix[seat.agent]] += sign
            x[row, p_ix[(seat.agent, seat.role)]] += sign
        y[row] = game.good_won  # type: ignore[assignment]
    penalty = np.concatenate(
        [
            np.full(len(boards), cfg.prior_board),
            np.full(len(agents), cfg.prior_skill),
            np.full(len(pairs), cfg.prior_role),
        ]
    )
    # Games with the same design row and outcome are interchangeable in the likelihood: fit on the
    # distinct rows with counts as weights (a two-agent roster on a 12-seat board has a few hundred).
    if len(usable):
        distinct, group = np.unique(np.column_stack([x, y]), axis=0, return_inverse=True)
        x, y, group = distinct[:, :-1], distinct[:, -1], group.reshape(-1)
    else:
        group = np.zeros(0, dtype=np.int64)
    return _Design(boards, agents, pairs, x, y, group, penalty, usable), skipped


def _fit(design: _Design, weights: np.ndarray, start: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
    """Penalised weighted logistic likelihood, minimised with an exact-Hessian trust region."""
    x, y, lam = design.x, design.y, design.penalty

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        eta = x @ theta
        # log(1 + e^eta) - y*eta, computed stably.
        nll = np.sum(weights * (np.logaddexp(0.0, eta) - y * eta)) + 0.5 * np.sum(lam * theta * theta)
        p = 1.0 / (1.0 + np.exp(-eta))
        grad = x.T @ (weights * (p - y)) + lam * theta
        return float(nll), grad

    def hessian(theta: np.ndarray) -> np.ndarray:
        eta = x @ theta
        p = 1.0 / (1.0 + np.exp(-eta))
        w = weights * p * (1.0 - p)
        return (x.T * w) @ x + np.diag(lam)

    theta0 = np.zeros(x.shape[1]) if start is None else start.copy()
    res = minimize(objective, theta0, jac=True, hess=hessian, method="trust-exact", options={"gtol": 1e-6})
    # Judge convergence by the gradient relative to the sample size (the likelihood is a sum over
    # games, so an absolute tolerance is stricter the more games there are).
    _, grad = objective(res.x)
    return res.x, bool(np.max(np.abs(grad)) <= 1e-5 * max(1.0, float(weights.sum())))


def _role_matrix(design: _Design) -> np.ndarray:
    """Maps the parameter vector to theta[a, r] = skill[a] + delta[a, r] for every observed pair."""
    n = design.x.shape[1]
    m = np.zeros((len(design.pairs), n))
    a_ix = {a: design.n_boards + i for i, a in enumerate(design.agents)}
    for i, (agent, _) in enumerate(design.pairs):
        m[i, a_ix[agent]] = 1.0
        m[i, design.n_boards + design.n_agents + i] = 1.0
    return m


def _bootstrap_resample_weights(n: int, rng: np.random.Generator, clusters: np.ndarray | None = None) -> np.ndarray:
    """How many times each game is drawn in one resample with replacement.

    With ``clusters`` (one id per game, ids 0..C-1) whole clusters are drawn: the games of one deal
    (a game and its mirror) go in or out together, so mirrored games are paired, not counted as
    independent. Without, every game is its own cluster.
    """
    if clusters is None:
        return np.bincount(rng.integers(0, n, size=n), minlength=n).astype(float)
    n_clusters = int(clusters.max()) + 1 if n else 0
    drawn = np.bincount(rng.integers(0, n_clusters, size=n_clusters), minlength=n_clusters)
    return drawn[clusters].astype(float)


def deal_clusters(games: Sequence[GameRecord]) -> np.ndarray:
    """One id per game: games on the same board and seed (a deal and its mirrors) share it."""
    ids: dict[tuple[str, object], int] = {}
    return np.array([ids.setdefault((g.board, g.seed) if g.seed is not None else (g.board, g.game_id), len(ids))
                     for g in games], dtype=np.int64)


def bradley_terry(games: Sequence[GameRecord], cfg: RatingConfig | None = None) -> BTRatings:
    """Fit the role-aware team BT model and bootstrap it over games."""
    cfg = cfg or RatingConfig()
    design, skipped = _design(games, cfg)
    n_games = len(design.games)
    if n_games == 0:
        return BTRatings(agents=[], roles=[], boards=[], games_used=0, games_skipped=skipped,
                         n_resamples=0, seed=cfg.seed, level=cfg.level)
    limiter = threadpool_limits(limits=1, user_api="blas") if threadpool_limits else None
    try:
        theta, converged = _fit(design, design.row_weights(np.ones(n_games)))
        rng = make_rng(cfg.seed)
        clusters = deal_clusters(design.games)
        samples = np.empty((cfg.n_resamples, len(theta)))
        for b in range(cfg.n_resamples):
            # Warm start from the full-data fit: same optimum, a few Newton steps instead of many.
            weights = design.row_weights(_bootstrap_resample_weights(n_games, rng, clusters))
            samples[b], ok = _fit(design, weights, start=theta)
            converged = converged and ok
    finally:
        if limiter is not None:
            limiter.restore_original_limits()
    role_map = _role_matrix(design)
    nb = design.n_boards
    # Studentized: the full-data estimate ± t(deals - 1) x the deal bootstrap's standard error. At the
    # bench's size (40 deals) the percentile interval of a skill gap covered the planted gap 0.913 of the
    # time, this one 0.960 (150 replicates, benchmarks/bench_power.py; issue #26).
    n_clusters = int(clusters.max()) + 1 if len(clusters) else 0
    t_crit = _t_crit(max(n_clusters - 1, 1), cfg.level)

    def interval(point: float, column: np.ndarray) -> Interval:
        finite = column[np.isfinite(column)]
        if len(finite) < 2:
            return Interval(estimate=float(point), low=float("nan"), high=float("nan"))
        half = t_crit * float(np.std(finite, ddof=1))
        return Interval(estimate=float(point), low=float(point - half), high=float(point + half))

    # Exposure counts, for the n columns of the report.
    agent_games: dict[str, int] = defaultdict(int)
    agent_seats: dict[str, int] = defaultdict(int)
    pair_seats: dict[tuple[str, str], int] = defaultdict(int)
    board_games: dict[str, int] = defaultdict(int)
    agent_deals: dict[str, set[int]] = defaultdict(set)  # independent units: a deal and its mirrors are one
    for game, deal in zip(design.games, deal_clusters(design.games)):
        board_games[game.board] += 1
        for agent in {s.agent for s in game.seats}:
            agent_games[agent] += 1
            agent_deals[agent].add(int(deal))
        for seat in game.seats:
            agent_seats[seat.agent] += 1
            pair_seats[(seat.agent, seat.role)] += 1

    skill_iv = {a: interval(theta[nb + i], samples[:, nb + i]) for i, a in enumerate(design.agents)}
    ranks, comparisons = ranks_by_pairwise_tests(design.agents, samples[:, nb:nb + len(design.agents)], 1.0 - cfg.level,
                                                 games={a: len(d) for a, d in agent_deals.items()},
                                                 estimates=theta[nb:nb + len(design.agents)])
    ranks = monotone_ranks(ranks, {a: float(theta[nb + i]) for i, a in enumerate(design.agents)})
    agents = sorted(
        (AgentRating(agent=a, skill=skill_iv[a], rank=ranks[a], games=agent_games[a], seats=agent_seats[a])
         for a in design.agents),
        key=lambda r: (-r.skill.estimate, r.agent),
    )
    role_point = role_map @ theta
    role_samples = samples @ role_map.T
    roles = [
        RoleSkill(agent=a, role=r, skill=interval(role_point[i], role_samples[:, i]), seats=pair_seats[(a, r)])
        for i, (a, r) in enumerate(design.pairs)
    ]
    boards = [
        BoardTerm(board=b, beta=interval(theta[i], samples[:, i]),
                  p_good_at_zero_skill=float(1.0 / (1.0 + np.exp(-theta[i]))), games=board_games[b])
        for i, b in enumerate(design.boards)
    ]
    power = _power_line(agents, design, samples, n_games)
    return BTRatings(
        agents=agents, roles=roles, boards=boards, games_used=n_games, games_skipped=skipped,
        n_resamples=cfg.n_resamples, seed=cfg.seed, level=cfg.level, power=power, converged=converged,
        rank_comparisons=comparisons, saturated=_saturated(design.games),
    )


def _t_crit(df: int, level: float) -> float:
    from scipy.stats import t as student_t

    return float(student_t.ppf(0.5 + level / 2.0, df))


def _saturated(games: Sequence[GameRecord]) -> list[str]:
    """Warnings for entries whose side won all or none of their games (a separated design)."""
    won: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for g in games:
        outcome = g.good_won
        if outcome is None:
            continue
        for agent in {s.agent for s in g.seats}:
            sides = [s.side for s in g.seats if s.agent == agent]
            share = sum(outcome if side == "good" else 1.0 - outcome for side in sides) / len(sides)
            won[agent][0] += share
            won[agent][1] += 1
    out = []
    for agent, (w, n) in sorted(won.items()):
        if n and (w == 0 or w == n):
            out.append(f"{agent} {'won' if w else 'lost'} all {int(n)} of its games: the design is saturated, so "
                       "its skill and interval reflect the prior (the penalty), not a measured gap")
    return out


def _power_line(agents: list[AgentRating], design: _Design, samples: np.ndarray, n_games: int) -> PowerLine | None:
    """The adjacent pair with the smallest gap relative to its bootstrap standard error."""
    if len(agents) < 2 or len(samples) < 2:
        return None
    col = {a: design.n_boards + i for i, a in enumerate(design.agents)}
    best: PowerLine | None = None
    best_z = float("inf")
    for hi, lo in zip(agents, agents[1:]):
        # The leaderboard separates two entries when their own intervals stop overlapping, which
        # needs the gap to exceed the sum of the two half-widths (not the half-width of the gap).
        gap = hi.skill.estimate - lo.skill.estimate
        se = float(np.std(samples[:, col[hi.agent]], ddof=1) + np.std(samples[:, col[lo.agent]], ddof=1))
        z = gap / se if se > 0 else float("inf")
        if z < best_z:
            best_z = z
            best = PowerLine(
                higher=hi.agent, lower=lo.agent, gap=float(gap), se=se, games_now=n_games,
                games_needed=games_to_separate(gap, se, n_games),
                separated=hi.skill.low > lo.skill.high,
            )
    return best


# --- OpenSkill ----------------------------------------------------------------------------------


class OpenSkillRating(BaseModel):
    """A secondary, descriptive rating: never the leaderboard's order, and σ is not a confidence interval."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    mu: float = Field(description="mean of μ over the shuffled orders")
    mu_vs_field: float = Field(description="μ minus the mean μ of every rated entry: the baseline is the field, not 25")
    order_spread: float = Field(description="standard deviation of μ across the shuffled orders (order dependence)")
    sigma: float = Field(description="OpenSkill's own uncertainty parameter, averaged over orders; not an interval")
    ordinal: float = Field(description="mu - 3 sigma: OpenSkill's conservative display value")
    rank: int = Field(description="order of mu_vs_field, no ties (descriptive only)")
    games: int


#: Game orders averaged by :func:`openskill_ratings` (OpenSkill is incremental, so order matters).
OPENSKILL_SHUFFLES = 8


class TwoTeamPlackettLuce:
    """OpenSkill's Plackett-Luce update for two teams, in closed form, with the library model's own
    parameters: the same numbers as ``PlackettLuce().rate`` (tests/test_eval_ratings.py holds them
    to 1e-12 on random games) without building a rating object per seat. The library's call costs
    ~75 us a game, and averaging ``OPENSKILL_SHUFFLES`` orders made it the report's slowest stage.
    A model with options this form does not cover (balance, margin, limit_sigma) is rated by the
    library itself."""

    def __init__(self, model) -> None:  # type: ignore[no-untyped-def]
        self.model = model
        self.mu, self.sigma = float(model.mu), float(model.sigma)
        self.beta2 = float(model.beta) ** 2
        self.kappa, self.tau2 = float(model.kappa), float(model.tau) ** 2
        self.exact = not model.balance and not model.limit_sigma and not model.margin

    def rate(self, teams: list[list[tuple[float, float]]], ranks: list[int]) -> list[list[tuple[float, float]]]:
        """New (mu, sigma) of every player of two teams, given as (mu, sigma); rank 0 beat rank 1."""
        if not self.exact:
            model = self.model
            new = model.rate([[model.create_rating([mu, s]) for mu, s in t] for t in teams], ranks=ranks)
            return [[(r.mu, r.sigma) for r in t] for t in new]
        grouped = self.rate_groups([[(mu, s, 1) for mu, s in t] for t in teams], ranks)
        return [[(mu, s) for mu, s, _ in t] for t in grouped]

    def rate_groups(self, teams: list[list[tuple[float, float, int]]],
                    ranks: list[int]) -> list[list[tuple[float, float, int]]]:
        """The same for teams given as (mu, sigma, count) groups of identical players (an agent's
        seats on one side): one update per group, as each of its players would get."""
        if not self.exact:
            flat = [[(mu, s) for mu, s, n in t for _ in range(n)] for t in teams]
            new = iter(p for t in self.rate(flat, ranks) for p in t)
            out_lib = []
            for t in teams:
                row = []
                for _, _, n in t:
                    players = [next(new) for _ in range(n)]
                    row.append((sum(p[0] for p in players) / n, sum(p[1] for p in players) / n, n))
                out_lib.append(row)
            return out_lib
        tau2, kappa = self.tau2, self.kappa
        teams = [[(mu, s * s + tau2, n) for mu, s, n in t] for t in teams]  # (mu, sigma^2 with tau, count)
        team_mu = [sum(n * mu for mu, _, n in t) for t in teams]
        team_s2 = [sum(n * s2 for _, s2, n in t) for t in teams]
        c = math.sqrt(team_s2[0] + team_s2[1] + 2 * self.beta2)
        e = [math.exp(x / c) for x in team_mu]
        sum_q = [sum(e[t] for t in range(2) if ranks[t] >= ranks[q]) for q in range(2)]
        ties = [sum(1 for t in range(2) if ranks[t] == ranks[q]) for q in range(2)]
        out = []
        for i in range(2):
            omega = delta = 0.0
            for q in range(2):
                if ranks[q] <= ranks[i]:
                    quo = e[i] / sum_q[q]
                    omega += ((1 - quo) if q == i else -quo) / ties[q]
                    delta += quo * (1 - quo) / ties[q]
            omega *= team_s2[i] / c
            delta *= math.sqrt(team_s2[i]) / c * team_s2[i] / (c * c)
            out.append([(mu + s2 / team_s2[i] * omega, math.sqrt(s2 * max(1 - s2 / team_s2[i] * delta, kappa)), n)
                        for mu, s2, n in teams[i]])
        return out


#: One rated game for OpenSkill: each side's agents with their seat counts, and the ranks.
Match = tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...], list[int]]


def _match(game: GameRecord) -> Match | None:
    """What a pass needs of a game, worked out once for every shuffled order (None: not rated)."""
    outcome = game.good_won
    if outcome is None:
        return None
    sides: dict[str, dict[str, int]] = {"good": {}, "wolf": {}}
    for seat in game.seats:
        side = sides[seat.side]
        side[seat.agent] = side.get(seat.agent, 0) + 1
    if not sides["good"] or not sides["wolf"]:
        return None
    ranks = [0, 1] if outcome == 1.0 else [1, 0] if outcome == 0.0 else [0, 0]
    return tuple(sides["good"].items()), tuple(sides["wolf"].items()), ranks


def _openskill_once(model: TwoTeamPlackettLuce, matches: list[Match | None]) -> tuple[dict[str, float], dict[str, float], dict[str, int]]:
    """One pass in the given order. An agent's update is the mean over its seats of the game (the
    same for each of its seats on one side)."""
    mu: dict[str, float] = {}
    sigma: dict[str, float] = {}
    played: dict[str, int] = defaultdict(int)
    for match in matches:
        if match is None:
            continue
        good, wolf, ranks = match
        for agent, _ in good + wolf:
            if agent not in mu:
                mu[agent], sigma[agent] = model.mu, model.sigma
        new = model.rate_groups([[(mu[a], sigma[a], n) for a, n in side] for side in (good, wolf)], ranks)
        moved: dict[str, list[float]] = {}
        for side, team in zip((good, wolf), new):
            for (agent, n), (new_mu, new_s, _) in zip(side, team):
                row = moved.setdefault(agent, [0.0, 0.0, 0.0])  # seat-weighted d_mu, sigma; seats
                row[0] += n * (new_mu - mu[agent])
                row[1] += n * new_s
                row[2] += n
        for agent in sorted(moved):
            d_mu, s_sum, weight = moved[agent]
            mu[agent] += d_mu / weight
            sigma[agent] = s_sum / weight
            played[agent] += 1
    return mu, sigma, played


def openskill_ratings(games: Sequence[GameRecord], shuffles: int = OPENSKILL_SHUFFLES, seed: int = 0) -> list[OpenSkillRating]:
    """Plackett-Luce OpenSkill averaged over ``shuffles`` seeded orders of the games.

    One pass depends on the order games are fed in; averaging seeded shuffles of the canonical order
    makes the result independent of how the games were listed and shows how much order moved μ.
    """
    from openskill.models import PlackettLuce

    model = TwoTeamPlackettLuce(PlackettLuce())
    base = [_match(g) for g in canonical_games(games)]
    rng = make_rng(seed)
    runs = []
    for _ in range(max(1, shuffles)):
        order = [base[i] for i in rng.permutation(len(base))]
        runs.append(_openskill_once(model, order))
    agents = sorted(runs[0][0])
    if not agents:
        return []
    mus = {a: np.array([r[0][a] for r in runs]) for a in agents}
    sigmas = {a: float(np.mean([r[1][a] for r in runs])) for a in agents}
    field_mean = float(np.mean([mus[a].mean() for a in agents]))
    ordered = sorted(agents, key=lambda a: (-float(mus[a].mean()), a))
    return [
        OpenSkillRating(agent=a, mu=float(mus[a].mean()), mu_vs_field=float(mus[a].mean()) - field_mean,
                        order_spread=float(mus[a].std(ddof=1)) if len(runs) > 1 else 0.0, sigma=sigmas[a],
                        ordinal=float(mus[a].mean()) - 3 * sigmas[a], rank=i + 1, games=runs[0][2][a])
        for i, a in enumerate(ordered)
    ]


# --- pairwise table -----------------------------------------------------------------------------


class PairwiseCell(BaseModel):
    """How often ``agent``'s side beat ``opponent``'s side when they sat on opposite sides.

    Per game, each (seat of agent, seat of opponent) pair on opposite sides counts once and the
    game's share is the fraction of those pairs agent's seat won, so every game weighs 1. Draws are
    half a win. The interval is the report's clustered one, with the deal as the unit (a game and
    its mirror are one unit).
    """

    model_config = ConfigDict(extra="forbid")

    agent: str
    opponent: str
    games: int
    wins: float
    rate: float | None
    low: float
    high: float


def pairwise_table(games: Sequence[GameRecord]) -> list[PairwiseCell]:
    share: dict[tuple[str, str], float] = defaultdict(float)
    count: dict[tuple[str, str], int] = defaultdict(int)
    by_deal: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    agents: set[str] = set()
    ordered = canonical_games(games)
    for game, deal in zip(ordered, deal_clusters(ordered)):
        outcome = game.good_won
        if outcome is None:
            continue
        by_side: dict[str, dict[str, int]] = {"good": defaultdict(int), "wolf": defaultdict(int)}
        for seat in game.seats:
            by_side[seat.side][seat.agent] += 1
            agents.add(seat.agent)
        pair_total: dict[tuple[str, str], int] = defaultdict(int)
        pair_won: dict[tuple[str, str], float] = defaultdict(float)
        for side, other, won in (("good", "wolf", outcome), ("wolf", "good", 1.0 - outcome)):
            for a, na in by_side[side].items():
                for b, nb in by_side[other].items():
                    if a == b:
                        continue
                    pair_total[(a, b)] += na * nb
                    pair_won[(a, b)] += na * nb * won
        for key, total in pair_total.items():
            share[key] += pair_won[key] / total
            count[key] += 1
            cell = by_deal[key][int(deal)]
            cell[0] += pair_won[key] / total
            cell[1] += 1
    cells = []
    for a in sorted(agents):
        for b in sorted(agents):
            if a == b:
                continue
            n = count.get((a, b), 0)
            k = share.get((a, b), 0.0)
            if n:
                sums = np.array(list(by_deal[(a, b)].values()))
                low, high = clustered_rate_interval(sums[:, 0], sums[:, 1])
            else:
                low, high = 0.0, 1.0
            cells.append(PairwiseCell(agent=a, opponent=b, games=n, wins=k, rate=k / n if n else None, low=low, high=high))
    return cells


# --- Copeland cross-check ---------------------------------------------------------------------------


class CopelandRow(BaseModel):
    """A rank from head-to-head results alone: a cross-check of the model-based leaderboard."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    score: float = Field(description="opponents beaten head to head (pairwise win rate above 0.5), ties count half")
    opponents: int
    rank: int


class Copeland(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rows: list[CopelandRow]
    concordant_pairs: int = Field(description="pairs of entries the BT leaderboard and Copeland order alike")
    discordant_pairs: int
    kendall_tau: float | None


def copeland(cells: Sequence[PairwiseCell], bt: BTRatings) -> Copeland:
    """Copeland scores from the pairwise table, and how far their order agrees with the BT skills."""
    agents = sorted({c.agent for c in cells})
    score = dict.fromkeys(agents, 0.0)
    met = dict.fromkeys(agents, 0)
    for c in cells:
        if c.rate is None or c.games == 0:
            continue
        met[c.agent] += 1
        score[c.agent] += 1.0 if c.rate > 0.5 else 0.5 if c.rate == 0.5 else 0.0
    ordered = sorted(agents, key=lambda a: (-score[a], a))
    rows = [CopelandRow(agent=a, score=score[a], opponents=met[a], rank=1 + sum(1 for b in agents if score[b] > score[a]))
            for a in ordered]
    skill = {r.agent: r.skill.estimate for r in bt.agents}
    conc = disc = 0
    rated = [a for a in agents if a in skill]
    for i, a in enumerate(rated):
        for b in rated[i + 1:]:
            s = np.sign(skill[a] - skill[b]) * np.sign(score[a] - score[b])
            conc += s > 0
            disc += s < 0
    total = conc + disc
    return Copeland(rows=rows, concordant_pairs=int(conc), discordant_pairs=int(disc),
                    kendall_tau=(conc - disc) / total if total else None)
