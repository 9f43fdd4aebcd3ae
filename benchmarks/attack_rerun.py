"""Rerun the input and key attacks of issue #23 against a checkout and print what each one gets.

Run from a checkout's root (the same script works on main, to show the before):

    PYTHONPATH=. python benchmarks/attack_rerun.py [--ray]

Everything stays on loopback and in a temporary folder. Each line: the attack, what the checkout
did, and the exit code where a command was run. ``--ray`` adds the SIGTERM-under-Ray rerun (it
starts a local Ray instance: tens of seconds).
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, ".")

from tests.llm_loopback import LoopbackServer, Reply, openai_completion  # noqa: E402

ROOT = Path.cwd()
KEY = "sk-attack-OPERATORSKEY0123456789"


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def first_line(proc: subprocess.CompletedProcess[str]) -> str:
    text = (proc.stdout.strip() or proc.stderr.strip()).splitlines()
    return text[0][:110] if text else ""


def keys_to_an_unconfigured_url(calls: int = 9) -> str:
    """local:MODEL@ATTACKER: how many model requests carried the operator's OPENAI_API_KEY."""
    from agents.providers import ChatMessage
    from agents.registry import make_agent

    os.environ.update(OPENAI_API_KEY=KEY, WEREWOLF_ARENA_KEYS="/nonexistent/keys.yaml")
    os.environ.pop("OPENAI_BASE_URL", None)
    async def play(url: str) -> None:
        for seat in range(1, calls + 1):
            agent = make_agent(f"local:m@{url}/v1", seat=seat, timeout=5.0, max_retries=0)
            await agent.provider.call([ChatMessage.of("user", "hi")], schema=None)
            await agent.provider.provider.client.close()  # closed in its own loop, not at exit

    with LoopbackServer() as srv:
        srv.default = Reply(body=openai_completion("hello"))
        asyncio.run(play(srv.url))
        carried = sum(any(KEY in v for v in seen.headers.values()) for seen in srv.seen)
        return f"{carried} of {len(srv.seen)} requests to an unconfigured local: URL carried OPENAI_API_KEY"


def class_from_an_untrusted_spec(tmp: Path) -> str:
    """langchain:MODULE:Class as a web request names it: was the module imported, the class built?"""
    from agents.registry import make_agent

    (tmp / "attack_seat_module.py").write_text(
        f"from pathlib import Path\nPath({str(tmp)!r}, 'imported').touch()\n"
        f"class Boom:\n    def __init__(self, **kw):\n        Path({str(tmp)!r}, 'built').touch()\n", encoding="utf-8")
    sys.path.insert(0, str(tmp))
    try:
        make_agent("langchain:attack_seat_module:Boom", seat=1)
        outcome = "accepted"
    except Exception as exc:  # the refusal, or the class failing to be a chat model after it was built
        outcome = f"refused: {str(exc)[:70]}"
    return (f"imported {int((tmp / 'imported').exists())}, constructed {int((tmp / 'built').exists())} "
            f"({outcome})")


def tournament(tmp: Path, name: str, deals: int = 2) -> Path:
    config = tmp / f"{name}.yaml"
    config.write_text(f"name: {name}\nroster: [{{label: h, agent: 'bot:heuristic'}}, {{label: r, agent: 'bot:random'}}]\n"
                      f"boards: [{{preset: std-12-guard}}]\ndeals: {deals}\nseed: 3\nseating: sides\n"
                      f"out: {tmp / name}\nconcurrency: 2\n", encoding="utf-8")
    proc = cli("tournament", str(config), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    return tmp / name


def score_of_a_tampered_tournament(tmp: Path) -> str:
    out = tournament(tmp, "tampered")
    game = sorted((out / "games").glob("*.jsonl"))[0]
    lines = game.read_text(encoding="utf-8").splitlines()
    result = json.loads(lines[-1])
    result["winner"] = "wolves" if result["winner"] != "wolves" else "village"
    game.write_text("\n".join(lines[:-1] + [json.dumps(result)]) + "\n", encoding="utf-8")
    verify, score = cli("verify", str(out)), cli("score", "--resamples", "20", "--format", "json", str(out))
    unverified = len(json.loads(score.stdout).get("unverified", [])) if score.returncode == 0 else "-"
    return f"verify exit {verify.returncode}; score exit {score.returncode} ({first_line(score)[:60]!r}, unverified listed: {unverified})"


def verify_an_abandoned_game(tmp: Path) -> str:
    from agents.bots import RandomBot
    from arena.engine import GameSetup
    from arena.referee import run_game
    from arena.stopping import GameStopped, SeatUnreachable
    from arena.transcript import TranscriptWriter

    class Unreachable:
        spec = "bot:random"

        async def decide(self, observation, request):  # type: ignore[no-untyped-def]
            raise SeatUnreachable(request.seat, "http://127.0.0.1:9/v1", "connection refused")

    path = tmp / "abandoned.jsonl"
    agents = [Unreachable() if s == 3 else RandomBot(s, 1) for s in range(1, 13)]
    with TranscriptWriter(path) as writer:
        try:
            asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=5), agents, writer=writer,
                                 specs=["bot:random"] * 12))
        except GameStopped:
            pass
    proc = cli("verify", str(path))
    return f"exit {proc.returncode}: {first_line(proc)}"


DEEP = 200_000
SCENARIO = {
    "schema": "werewolf-scenario/1", "name": "s", "preset": "std-12-guard", "rules": {"sheriff": False},
    "deal": ["werewolf"] * 4 + ["seer", "witch", "hunter", "guard"] + ["villager"] * 4,
    "script": {str(s): {"N1.wolf_kill": 9} for s in range(1, 5)} | {"8": {"N1.guard": 9}},
    "stop_after": "D1", "expect": {"deaths": {}},
}


def bad_files(tmp: Path) -> list[str]:
    rows = []
    deep_yaml = "name: x\nroster: " + "[" * DEEP + "]" * DEEP + "\n"
    for label, name, content, command in [
        ("tournament YAML nested 200k levels", "t.yaml", deep_yaml, "tournament"),
        ("tournament YAML with bytes not UTF-8", "u.yaml", b"name: x\nroster: [\xff]\n", "tournament"),
        ("bench suite nested 200k levels", "b.yaml", deep_yaml, "bench run"),
        ("scenario JSON nested 200k levels", "s.json", '{"name": ' + "[" * DEEP + "]" * DEEP + "}", "scenario run"),
        ("scenario YAML nested 200k levels", "s.yaml", "name: " + "[" * DEEP + "]" * DEEP, "scenario run"),
        ("scenario JSON with bytes not UTF-8", "v.json", b'{"name": "\xc3\x28"}', "scenario run"),
    ]:
        path = tmp / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        extra = ["--agent", "bot:random"] if command == "bench run" else []
        proc = cli(*command.split(), str(path), *extra)
        said = "internal error" if "internal error" in proc.stdout + proc.stderr else re.sub(r"/\S*/", "", first_line(proc))
        rows.append(f"{label}: exit {proc.returncode} ({said[:80]})")
    return rows


def scenario_lines_that_never_apply(tmp: Path) -> list[str]:
    rows = []
    for label, change in [
        ("script line for seat 0", lambda d: d["script"].update({"0": {"N1.wolf_kill": 9}})),
        ("script line for seat 99", lambda d: d["script"].update({"99": {"N1.guard": 9}})),
        ("decision N1.fly_to_moon", lambda d: d["script"].update({"1": {"N1.fly_to_moon": 3}})),
        ("string seat in expect.deaths", lambda d: d["expect"].update(deaths={"N1": [{"seat": "9", "cause": "wolf"}]})),
    ]:
        data = copy.deepcopy(SCENARIO)
        change(data)
        path = tmp / "line.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        proc = cli("scenario", "run", str(path))
        rows.append(f"{label}: exit {proc.returncode} ({first_line(proc)[:90]})")
    return rows


def sigterm(tmp: Path, executor: str) -> str:
    config = tmp / f"sig-{executor}.yaml"
    out = tmp / f"sig-{executor}"
    config.write_text(f"name: sig\nroster: [{{label: h, agent: 'bot:heuristic'}}, {{label: r, agent: 'bot:random'}}]\n"
                      f"boards: [{{preset: std-12-guard}}]\ndeals: 30\nseed: 3\nseating: sides\nout: {out}\n"
                      "concurrency: 2\n", encoding="utf-8")
    extra = ["--ray-address", "local"] if executor == "ray" else []
    proc = subprocess.Popen([sys.executable, "-m", "arena", "tournament", str(config), "--no-progress",
                             "--executor", executor, *extra], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        index = out / "index.jsonl"
        if index.exists() and b'"done"' in index.read_bytes():
            break
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    return (f"exit {proc.returncode}, --resume hint {int('--resume' in err)}, "
            f"C++ stack dump {int('SIGTERM received' in err)}, traceback {int('Traceback' in err)}")


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        print("key to an unconfigured URL:", keys_to_an_unconfigured_url())
        print("class from an untrusted spec:", class_from_an_untrusted_spec(tmp))
        print("score of a tampered tournament:", score_of_a_tampered_tournament(tmp))
        print("verify of an abandoned game:", verify_an_abandoned_game(tmp))
        for row in bad_files(tmp):
            print("bad file:", row)
        for row in scenario_lines_that_never_apply(tmp):
            print("scenario:", row)
        print("SIGTERM, process executor:", sigterm(tmp, "process"))
        if "--ray" in sys.argv:
            print("SIGTERM, ray executor:", sigterm(tmp, "ray"))


if __name__ == "__main__":
    main()
