"""A normal (non-editable) install works: the wheel carries the prompt templates, the configs and
the viewer assets, and the installed ``arena`` runs from anywhere without the repository.

The wheel is built offline from a copy of the sources (``pip wheel --no-build-isolation``, so the
setuptools of this environment builds it: ``pip install -e '.[dev]'`` brings one that can) and
installed into a throw-away virtualenv that sees this environment's dependencies (its site-packages,
whether this environment is the system's Python or a virtualenv) but not the repository: every
command runs from a temporary folder, and the test checks that ``arena`` is imported from the
virtualenv.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: What building the wheel reads: the packages, the data folders, the metadata.
SOURCES = ("pyproject.toml", "README.md", "arena", "agents", "prompts", "configs")
PACKAGES = ("arena", "agents")
DATA = {"prompts": "arena/_data/prompts", "configs": "arena/_data/configs"}
BIN = "Scripts" if os.name == "nt" else "bin"


def _can_build_wheels() -> bool:
    """setuptools >= 70.1 has ``bdist_wheel`` built in; older ones need the ``wheel`` package."""
    try:
        major, minor = (int(n) for n in re.findall(r"\d+", metadata.version("setuptools"))[:2])
    except (metadata.PackageNotFoundError, ValueError):
        return False
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


pytestmark = pytest.mark.skipif(not _can_build_wheels(),
                                reason="no offline wheel builder: pip install -e '.[dev]' (setuptools>=70.1)")


def _clean_env(venv_dir: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if venv_dir is not None:
        env["PATH"] = str(venv_dir / BIN) + os.pathsep + env.get("PATH", "")
        env["VIRTUAL_ENV"] = str(venv_dir)
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, args))} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def _files(root: Path, folder: str, suffixes: tuple[str, ...] | None = None) -> set[str]:
    """Files under ``root/folder`` as posix paths relative to ``root``, caches left out."""
    return {p.relative_to(root).as_posix() for p in (root / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and (suffixes is None or p.suffix in suffixes)}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Build from a copy: an in-tree build would leave build/ and egg-info in the working tree.
    src = tmp_path_factory.mktemp("src")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("wheel")
    _run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation", "--no-index",
          "-w", str(out)], cwd=out, env=_clean_env())
    (built,) = out.glob("werewolf_arena-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv with the wheel installed; the dependencies come from this environment."""
    venv_dir = tmp_path_factory.mktemp("venv")
    # No pip of its own (no ensurepip): this environment's pip installs into the venv's prefix.
    venv.EnvBuilder(system_site_packages=True, with_pip=False, symlinks=os.name != "nt").create(venv_dir)
    _see_this_environment(venv_dir)
    # --ignore-installed: this environment may hold an (editable) werewolf-arena already.
    _run([str(venv_dir / BIN / "python"), "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed",
          str(wheel)], cwd=venv_dir, env=_clean_env())
    return venv_dir


def _see_this_environment(venv_dir: Path) -> None:
    """Put this environment's site-packages on the new venv's path, after the venv's own.

    ``system_site_packages`` only reaches the base interpreter's packages: when the tests run inside
    a virtualenv (as the README says to), the dependencies live in that virtualenv instead. A ``.pth``
    line adds a folder without running the ``.pth`` files inside it, so an editable install of the
    arena in this environment stays out of sight, and the wheel's copy is the one imported."""
    python = venv_dir / BIN / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True, env=_clean_env()).stdout.strip()
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (Path(purelib) / "_outer_environment.pth").write_text("".join(f"{path}\n" for path in ours), encoding="utf-8")


def test_the_wheel_holds_every_module_and_data_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = set()
    for package in PACKAGES:
        expected |= _files(ROOT, package, (".py",))
    expected |= _files(ROOT, "arena/viewer_assets") | _files(ROOT, "arena/web/assets")
    for folder, packaged in DATA.items():
        expected |= {packaged + name[len(folder):] for name in _files(ROOT, folder, (".yaml",))}
    missing = sorted(expected - names)
    assert not missing, f"not in {wheel.name}: {missing}"


def test_installed_arena_plays_lists_and_shows_rules_outside_the_repo(installed: Path, tmp_path: Path) -> None:
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    env = _clean_env(installed)
    python, arena = str(installed / BIN / "python"), str(installed / BIN / "arena")

    # The installed copy is the one imported, not the repository's.
    where = _run([python, "-c", "import json, arena, agents; print(json.dumps([arena.__file__, agents.__file__]))"],
                 cwd=cwd, env=env)
    for path in json.loads(where.stdout):
        assert Path(path).resolve().is_relative_to(installed.resolve()), (path, installed)

    # The default game: bot:heuristic in every seat, the transcript under ./transcripts of the cwd.
    played = _run([arena, "play", "--seed", "7"], cwd=cwd, env=env)
    assert "Night 1 falls" in played.stdout and "Game over" in played.stdout, played.stdout
    (transcript,) = (cwd / "transcripts").glob("std-12-guard-seed7*.jsonl")

    # LLM seats render their prompts from the packaged templates (mock: is an offline LLM stand-in).
    _run([python, "-m", "arena", "play", "--seed", "3", "--lang", "zh", "--agents", "mock:x", "-q",
          "-o", "mock"], cwd=cwd, env=env)
    (mock_transcript,) = (cwd / "mock").glob("*.jsonl")
    lines = [json.loads(line) for line in mock_transcript.read_text(encoding="utf-8").splitlines()]
    prompts = [line["prompt"] for line in lines if line["type"] == "decision" and line.get("prompt")]
    assert prompts and "狼人杀" in prompts[0][0]["content"], prompts[:1]
    # The hash of the templates the seat rendered from covers real files, not an empty folder.
    version = lines[0]["agents"][0]["version"]
    assert version.startswith("prompts:") and version != "prompts:" + hashlib.sha256().hexdigest()[:8], version

    presets = _run([arena, "presets"], cwd=cwd, env=env)
    assert "std-12-guard" in presets.stdout and "playable" in presets.stdout
    rules = _run([arena, "rules", "show", "std-12-guard"], cwd=cwd, env=env)
    assert "side-kill" in rules.stdout and "witch_self_save" in rules.stdout
    _run([arena, "replay", str(transcript)], cwd=cwd, env=env)
    _run([arena, "view", str(transcript), "-o", "game.html"], cwd=cwd, env=env)
    assert "<html" in (cwd / "game.html").read_text(encoding="utf-8").lower()

    # ... and it found its data inside the installation.
    data = _run([python, "-c", "import json; from arena.resources import data_dir; "
                 "print(json.dumps([str(data_dir('prompts')), str(data_dir('configs'))]))"], cwd=cwd, env=env)
    for path in json.loads(data.stdout):
        assert Path(path).resolve().is_relative_to(installed.resolve()), (path, installed)
