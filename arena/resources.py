"""Where the project's data lives: the templates in ``prompts/`` (narration, bot speech, LLM prompts,
the human seat, the replay page) and the boards, profiles and prices in ``configs/``.

Both folders sit at the repository root. A built wheel carries copies inside the package, as
``arena/_data/prompts`` and ``arena/_data/configs`` (``pyproject.toml`` maps them there), since an
installed package has no repository root. :func:`data_dir` is the one place that resolves them: the
packaged copy when there is one (it only exists in an installation), else the checkout's folder
(a source checkout or an editable install, where edits to the files take effect at once). The
packaged copy goes first so that an installation never picks up an unrelated ``prompts/`` folder
that happens to sit next to it in site-packages.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files
from pathlib import Path

DATA_DIRS = ("prompts", "configs")


@lru_cache(maxsize=None)
def data_dir(name: str) -> Path:
    """The folder ``prompts`` or ``configs``: packaged in the installation, else in the checkout."""
    if name not in DATA_DIRS:
        raise ValueError(f"unknown data folder {name!r}; choose one of {', '.join(DATA_DIRS)}")
    package = Path(str(files("arena"))).resolve()
    packaged = package / "_data" / name
    if packaged.is_dir():
        return packaged
    return package.parent / name
