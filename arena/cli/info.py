"""``arena presets``, ``arena rules show ID`` and ``arena schema``: what the arena knows, printed."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from arena.cli.common import friendly

rules_app = typer.Typer(help="Inspect a board's rules.", no_args_is_help=True)


@friendly
def presets_command() -> None:
    """List the board presets (docs/rules.md §5) and whether the referee plays them yet."""
    from arena.config import parametric_boards, presets
    from arena.rules.setup import supported_roles

    for board in parametric_boards().values():
        lo, hi = board.players_range
        typer.echo(f"{board.id:28} {lo}-{hi}p {board.profile:18} one board for {lo}-{hi} players: "
                   f"--preset {board.id} --players N (or {board.id}-N below)")
    for preset in presets().values():
        missing = sorted({c.value for c in preset.cards} - {r.value for r in supported_roles()})
        status = "playable" if not missing else "needs: " + ", ".join(missing)
        typer.echo(f"{preset.id:28} {preset.players:>2}p  {preset.profile:18} {status}")
        typer.echo(f"{'':28}      {preset.title_en} / {preset.title_zh}")


@rules_app.command("show")
@friendly
def rules_show(
    preset_id: str = typer.Argument(..., help="A preset id from `arena presets`."),
    rule: list[str] = typer.Option([], "--rule", "-r", help="Override a switch, e.g. -r sheriff=false."),
    players: int = typer.Option(None, "--players", "-n", help="Player count, for a board made for a range of "
                                                                "counts (classic-millers: 8-18)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Print a preset's roles, win rule, night order (merged steps named, R18) and every switch, in English and Chinese."""
    from arena.cli.play import parse_rule_overrides
    from arena.config import board_id, resolve_rules
    from arena.narration import templates

    from arena.rules.night import called_steps, merged_steps

    overrides = parse_rule_overrides(rule)
    rules = resolve_rules(board_id(preset_id, players), overrides)
    preset = rules.preset
    switches = rules.switches.model_dump(mode="json")
    # R18: the night steps as this board calls them, with any step merged from order_003 named.
    night = {"N1": called_steps(rules, first_night=True), "later": called_steps(rules, first_night=False),
             "merged_from_order_003": merged_steps(rules)}
    if as_json:
        typer.echo(json.dumps({"preset": preset.model_dump(mode="json"), "switches": switches, "night_order": night},
                              ensure_ascii=False, indent=2))
        return
    en, zh = templates("en"), templates("zh")
    counts: dict[str, int] = {}
    for card in preset.cards:
        counts[card.value] = counts.get(card.value, 0) + 1
    typer.echo(f"{preset.id}: {preset.title_en} / {preset.title_zh}")
    typer.echo(f"seed document {preset.seed_doc}, profile {overrides.get('profile', preset.profile)}, {preset.players} players"
               + (f", {len(preset.cards)} cards ({preset.center_size} in the center)" if preset.center_size else ""))
    typer.echo("roles: " + ", ".join(f"{en['role'].get(r, r)} ×{n}" for r, n in counts.items()))
    typer.echo("角色：" + "、".join(f"{zh['role'].get(r, r)}×{n}" for r, n in counts.items()))
    typer.echo("win: " + WIN_TEXT_EN[switches["win_mode"]] + "; " + VILLAGE_TEXT_EN[switches["village_win"]])
    typer.echo("胜负：" + WIN_TEXT_ZH[switches["win_mode"]] + "；" + VILLAGE_TEXT_ZH[switches["village_win"]])
    if "cupid" in counts:
        typer.echo("third party: " + LOVERS_TEXT_EN[switches["cupid_camp"]]
                   + "; if several sides win at once: lovers > wolves > village")
        typer.echo("第三方：" + LOVERS_TEXT_ZH[switches["cupid_camp"]] + "；同时达成时：情侣 > 狼人 > 好人")
    if preset.god_roles:
        typer.echo("gods / 神: " + ", ".join(r.value for r in preset.god_roles)
                   + "; villagers / 民: " + ", ".join(r.value for r in preset.villager_roles))
    merged = night["merged_from_order_003"]
    typer.echo(f"night order ({switches['night_order']}"
               + (f", with {', '.join(merged)} merged at their place in order_003, R18" if merged else "") + "):")
    typer.echo("  night 1: " + " → ".join(night["N1"]))
    typer.echo("  later nights: " + " → ".join(night["later"]))
    typer.echo("switches:")
    for name, value in switches.items():
        typer.echo(f"  {name} = {json.dumps(value)}")


WIN_TEXT_EN = {
    "town_kill": "town-kill (屠城): wolves win when every non-wolf is dead",
    "side_kill": "side-kill (屠边): wolves win when all gods or all villagers are dead",
    "villagers_or_key_roles": "wolves win when all ordinary villagers or all key roles are dead",
}
#: R171: the village's half of the win line, by ``village_win``.
VILLAGE_TEXT_EN = {
    "wolves_and_bad_identities_dead": "the village when every wolf and third party is dead",
    "all_wolves_dead": "the village when every wolf is dead, whatever camp Cupid plays for",
}
VILLAGE_TEXT_ZH = {
    "wolves_and_bad_identities_dead": "好人放逐或杀光所有狼人与第三方获胜",
    "all_wolves_dead": "好人放逐或杀光所有狼人获胜，不论丘比特帮哪一方",
}
LOVERS_TEXT_EN = {
    "follows_lovers": "a wolf-and-good couple and Cupid win when everyone else is dead; same-camp lovers and Cupid help their camp",
    "good_unless_mixed": "a wolf-and-good couple and Cupid win when everyone else is dead; with two wolf lovers Cupid stays good",
    "always_good": "a wolf-and-good couple wins when everyone else is dead; Cupid is always good",
    "always_third": "the lovers, Cupid and the witness form a third camp that wins when everyone else is dead",
}
LOVERS_TEXT_ZH = {
    "follows_lovers": "人狼恋与丘比特杀光其余所有人获胜；同阵营情侣与丘比特帮助本阵营",
    "good_unless_mixed": "人狼恋与丘比特杀光其余所有人获胜；双狼情侣时丘比特仍属好人",
    "always_good": "人狼恋杀光其余所有人获胜；丘比特始终属于好人",
    "always_third": "情侣、丘比特与证婚人组成第三方，杀光其余所有人获胜",
}
WIN_TEXT_ZH = {
    "town_kill": "屠城，狼人杀光所有非狼人获胜",
    "side_kill": "屠边，狼人杀光所有神职或所有平民获胜",
    "villagers_or_key_roles": "狼人杀光所有平民或所有巨头获胜",
}


@friendly
def schema_command(
    out: Path = typer.Option(None, "--out", "-o", help="Write the schema here instead of printing it."),
) -> None:
    """Write the JSON Schema of one transcript line."""
    from arena.transcript import json_schema

    text = json.dumps(json_schema(), indent=2, ensure_ascii=False)
    if out:
        out.write_text(text + "\n", encoding="utf-8")
        typer.echo(f"wrote {out}")
    else:
        typer.echo(text)
