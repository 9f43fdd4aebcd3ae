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
