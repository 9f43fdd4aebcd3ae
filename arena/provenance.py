"""What code and which prompt templates played a game: the package version, the git commit of the
checkout it ran from (or ``"not a checkout"``), whether that checkout had uncommitted changes, and
a hash of every prompt template file in force.

A transcript header carries it for games with a seat whose answers are not a function of the seed
(a language model, a human): those games cannot be replayed from the code, so the header must say
which code it was. Bot games leave it out, so that the same seed gives the same bytes on every
commit (the byte-identity checks of the engine rely on it).
"""

from __future__ import annotations

import hashlib
import subprocess
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from arena import __version__
from arena.resources import data_dir

NOT_A_CHECKOUT = "not a checkout"


class BuildInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str
    commit: str = Field(description="the git commit of the arena's checkout, or 'not a checkout'")
    dirty: bool | None = Field(default=None, description="uncommitted changes in the checkout (None: unknown)")
    templates: dict[str, str] = Field(description="prompts/<lang>/<file>: the first 12 hex of its sha256")


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None


@lru_cache(maxsize=4)
def git_state(root: Path | None = None) -> tuple[str, bool | None]:
    """(commit, dirty) of the checkout this package runs from (or of ``root``); ``not a checkout``
    for an installed wheel."""
    root = root or Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return NOT_A_CHECKOUT, None
    head = _git(root, "rev-parse", "HEAD")
    if head is None or head.returncode != 0 or not head.stdout.strip():
        return NOT_A_CHECKOUT, None
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    dirty = None if status is None or status.returncode != 0 else bool(status.stdout.strip())
    return head.stdout.strip(), dirty


@lru_cache(maxsize=1)
def template_hashes() -> dict[str, str]:
    """Every template file under ``prompts/`` (line endings normalised, so a Windows checkout hashes the same)."""
    base = data_dir("prompts")
    out: dict[str, str] = {}
    for path in sorted(base.rglob("*.yaml")):
        digest = hashlib.sha256(path.read_bytes().replace(b"\r\n", b"\n")).hexdigest()[:12]
        out[path.relative_to(base).as_posix()] = digest
    return out


def build_info() -> BuildInfo:
    commit, dirty = git_state()
    return BuildInfo(version=__version__, commit=commit, dirty=dirty, templates=template_hashes())
