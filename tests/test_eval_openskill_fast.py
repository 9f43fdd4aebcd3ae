"""The OpenSkill stage's closed-form two-team Plackett-Luce update (issue #27: the report's slowest
stage) gives the library's own numbers."""

from __future__ import annotations

import random

import pytest
from openskill.models import PlackettLuce

from arena.evaluate.ratings import TwoTeamPlackettLuce


def test_the_closed_form_matches_the_library_on_random_two_team_games():
    library = PlackettLuce()
    fast = TwoTeamPlackettLuce(library)
    rng = random.Random(7)
    for _ in range(400):
        teams = [[(rng.uniform(5, 45), rng.uniform(0.5, 9)) for _ in range(rng.randint(1, 9))] for _ in range(2)]
        ranks = rng.choice([[0, 1], [1, 0], [0, 0]])
        expected = library.rate([[library.create_rating([mu, s]) for mu, s in t] for t in teams], ranks=ranks)
        got = fast.rate(teams, ranks)
        for want_team, got_team in zip(expected, got):
            for want, (mu, sigma) in zip(want_team, got_team):
                assert mu == pytest.approx(want.mu, abs=1e-12) and sigma == pytest.approx(want.sigma, abs=1e-12)


def test_a_model_with_options_the_closed_form_lacks_is_rated_by_the_library():
    library = PlackettLuce(balance=True)
    fast = TwoTeamPlackettLuce(library)
    teams = [[(30.0, 5.0), (20.0, 7.0)], [(25.0, 8.0)]]
    expected = library.rate([[library.create_rating([mu, s]) for mu, s in t] for t in teams], ranks=[0, 1])
    assert not fast.exact
    assert fast.rate(teams, [0, 1]) == [[(r.mu, r.sigma) for r in t] for t in expected]


def _library_pass(games):
    """The OpenSkill pass as it was written against the library: a rating object per seat."""
    from collections import defaultdict

    model = PlackettLuce()
    mu, sigma = {}, {}
    for game in games:
        outcome = game.good_won
        good = [s.agent for s in game.seats if s.side == "good"]
        wolf = [s.agent for s in game.seats if s.side == "wolf"]
        for agent in good + wolf:
            mu.setdefault(agent, model.mu)
            sigma.setdefault(agent, model.sigma)
        teams = [[model.create_rating([mu[a], sigma[a]]) for a in side] for side in (good, wolf)]
        new = model.rate(teams, ranks=[0, 1] if outcome == 1.0 else [1, 0] if outcome == 0.0 else [0, 0])
        d_mu, new_sigma = defaultdict(list), defaultdict(list)
        for side, team in zip((good, wolf), new):
            for agent, rating in zip(side, team):
                d_mu[agent].append(rating.mu - mu[agent])
                new_sigma[agent].append(rating.sigma)
        for agent in sorted(d_mu):
            mu[agent] += sum(d_mu[agent]) / len(d_mu[agent])
            sigma[agent] = sum(new_sigma[agent]) / len(new_sigma[agent])
    return mu, sigma


def test_a_pass_over_games_gives_the_library_pass_numbers():
    from arena.evaluate.ratings import _match, _openskill_once
    from arena.evaluate.records import GameRecord, SeatRecord

    rng = random.Random(3)
    agents = ["a", "b", "c"]
    games = []
    for i in range(60):
        seats = tuple(SeatRecord(seat=s, agent=rng.choice(agents), role="werewolf" if s <= 4 else "villager",
                                 side="wolf" if s <= 4 else "good") for s in range(1, 13))
        games.append(GameRecord(game_id=f"g{i}", board="std-12-guard", winner=rng.choice(["village", "wolves", "draw"]),
                                seats=seats, seed=i))
    want_mu, want_sigma = _library_pass(games)
    mu, sigma, _ = _openskill_once(TwoTeamPlackettLuce(PlackettLuce()), [_match(g) for g in games])
    for agent in agents:
        assert mu[agent] == pytest.approx(want_mu[agent], abs=1e-9)
        assert sigma[agent] == pytest.approx(want_sigma[agent], abs=1e-9)
