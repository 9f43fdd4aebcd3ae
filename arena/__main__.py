"""``python -m arena``: the same as the ``arena`` command."""

from arena.cli.main import app

app(prog_name="arena")
