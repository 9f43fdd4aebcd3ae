"""Whose screen a narration is (R82): the god view says so and lists secret ballots under a note; a seat's
screen and the public view never list a secret ballot; a day without an exile says why (issue #24)."""

from __future__ import annotations

import pytest

from arena.events import ExileResult
from arena.narration import Narrator, templates
from tests.helpers import random_game


@pytest.fixture(scope="module")
def secret_game_log() -> list:
    result, _ = random_game("std-12-guard", 3, {"ballot_visibility": "secret"})
    log = list(result.game.log)
    assert any(e.type == "ballot_cast" and e.visibility.to == "referee" for e in log)
    return log


def _story(narrator: Narrator, log: list) -> list[str]:
    return [line for e in log if (line := narrator.line(e))]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_R82_the_god_view_says_it_is_the_god_view_and_marks_secret_ballots(secret_game_log: list, lang: str) -> None:
    t = templates(lang)
    story = "\n".join(_story(Narrator(lang, god_view=True, says_view=True), secret_game_log))
    assert t["god_view_note"] in story.splitlines()[1]
    ballots = sum(1 for e in secret_game_log if e.type == "ballot_cast")
    rounds = len({(e.phase, e.ballot, e.round) for e in secret_game_log if e.type == "ballot_cast"})
    assert story.count(t["secret_ballots_god_view"]) == rounds and ballots > rounds
    assert t["god_view_note"] not in "\n".join(_story(Narrator(lang, god_view=True), secret_game_log))


def test_R82_a_seat_and_the_public_never_see_a_secret_ballot(secret_game_log: list) -> None:
    t = templates("en")
    voters = sorted({e.voter for e in secret_game_log if e.type == "ballot_cast"})
    for narrator in [Narrator("en", god_view=False, seat=s) for s in voters] + [Narrator("en", god_view=False)]:
        story = _story(narrator, secret_game_log)
        assert story, "the public view narrates the public events"
        text = "\n".join(story)
        assert " → " not in text and t["secret_ballots_god_view"] not in text and t["god_view_note"] not in text
        assert "Tally:" in text  # the totals are public (R82)


def test_the_public_view_under_public_ballots_lists_them() -> None:
    result, _ = random_game("std-12-guard", 3, {"ballot_visibility": "public"})
    text = "\n".join(_story(Narrator("en", god_view=False), result.game.log))
    assert " → " in text and templates("en")["secret_ballots_god_view"] not in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_R87_R88_each_reason_for_no_exile_has_its_own_words(lang: str) -> None:
    reasons = ["tie", "second_tie", "third_tie", "revote_limit", "no_ballot", "nobody_may_vote"]
    lines = [Narrator(lang).line(ExileResult(phase="D2", seat=None, reason=r)) for r in reasons]
    assert len(set(lines)) == len(reasons)
    for reason, line in zip(reasons, lines):
        assert line and templates(lang)["reason"][reason] in line


def test_R82_arena_play_under_secret_ballots_says_god_view_and_the_public_view_hides_ballots(tmp_path) -> None:
    from typer.testing import CliRunner

    from arena.cli.main import app

    t = templates("en")
    args = ["play", "--seed", "3", "-r", "ballot_visibility=secret", "-o", str(tmp_path)]
    god = CliRunner().invoke(app, args)
    public = CliRunner().invoke(app, [*args, "--public-view"])
    assert god.exit_code == 0 and public.exit_code == 0, god.output + public.output
    assert t["god_view_note"] in god.output and t["secret_ballots_god_view"] in god.output and " → " in god.output
    assert "Exile vote" in public.output and "Tally:" in public.output
    assert " → " not in public.output and t["god_view_note"] not in public.output
