"""The ``arena`` command. Each command lives in its own module; this file only wires them."""

from __future__ import annotations

import typer

from arena.cli import info, play, replay_cmd, scenario_cmd, serve

app = typer.Typer(
    name="arena",
    help="Werewolf (狼人杀) arena: a deterministic referee for Chinese table rules, "
         "with LLM, bot and human seats.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



@app.callback()
def _process_settings() -> None:
    """Settings of the arena's own process, before any command runs."""
    from arena.gc_policy import relax_young_collections

    relax_young_collections()


app.command("play")(play.play_command)
app.command("presets")(info.presets_command)
app.add_typer(info.rules_app, name="rules")
app.command("schema")(info.schema_command)
app.add_typer(scenario_cmd.scenario_app, name="scenario")
app.command("replay")(replay_cmd.replay_command)
app.command("serve")(serve.serve_command)
app.command("verify")(replay_cmd.verify_command)


def _register_optional() -> None:
    """Commands of other modules, registered when present (evaluator, tournaments, viewer)."""
    import importlib

    for module_name in ("arena.cli.extra", "arena.cli.evaluator"):
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        module.register(app)


_register_optional()

if __name__ == "__main__":  # pragma: no cover
    app()
