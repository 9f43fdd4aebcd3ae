"""A seat's role card, as the browser (``arena serve``) and the terminal (``arena play --human``) show
it at the reveal: the card as the models are told it (prompts/*/llm_roles.yaml: ability, goal, the
team) with the board's rules that bear on it (the summary card's lines for this role and for its
decisions), and, for a wolf card, the knife's unanimity and the standing self-destruct, in the words
of the seat's own screen."""

from __future__ import annotations

from arena.observation import Observation
from arena.types import Role


def role_card(observation: Observation, *, knife_rule: str, self_destruct_rule: str) -> str:
    """The card's lines for ``observation``'s seat, in its language. ``knife_rule`` and
    ``self_destruct_rule``: the screen's own sentences (a button in the browser, a word in the terminal)."""
    from agents.llm_prompts import PromptBuilder
    from arena.rules.registry import registry

    view = observation.view()
    seat = observation.seat
    full, summary = PromptBuilder(observation.lang, seat), PromptBuilder(observation.lang, seat, memory="summary")
    _, seat_rules = summary.rule_lines(observation)
    lines = [ln for ln in full.role_text(view, seat_rules).split("\n") if ln.strip()]
    if view.role is not None:
        kinds = registry().spec(Role(view.role)).kinds
        for kind in kinds:
            lines += [ln for ln in summary.kind_rule_lines(observation, kind) if ln not in lines]
        if "wolf_kill" in kinds:
            lines.append("- " + knife_rule)
        if PromptBuilder.may_self_destruct(observation, view):
            lines.append("- " + self_destruct_rule)
    return "\n".join(lines)
