"""The key never reaches the disk: configs with a key are refused, what is persisted is scrubbed,
URLs with user info are refused, redaction catches every encoding, and a broken keys file is an
error (docs/reliability.md)."""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from agents.providers.base import ProviderConfigError
from agents.providers.secrets import redact, remember_secret
from agents.registry import make_agent
from arena.credentials import scrub
from arena.stopping import SeatUnreachable
from arena.tournament import RosterEntry, TournamentConfig, TournamentError, load_config, persisted_config
from tests.llm_loopback import LoopbackServer, Reply

ROOT = Path(__file__).resolve().parent.parent
# Characters that URL-encoding, JSON and base64 all treat differently from letters.
SECRET = "sk-proj_Zq9/X+y=Wv8#K7%tu&s6Rr5QqP4"


@pytest.fixture(autouse=True)
def _env(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", str(tmp_path / "no-keys.yaml"))


def every_form(secret: str) -> list[str]:
    raw = secret.encode()
    forms = [secret, quote(secret, safe=""), raw.hex(), json.dumps(secret)[1:-1]]
    for user in ("", "u", "us", "user"):
        forms.append(base64.b64encode(f"{user}:{secret}".encode()).decode())
        forms.append(base64.urlsafe_b64encode(f"{user}:{secret}".encode()).decode().rstrip("="))
    return forms


def leaked(text: str, secret: str = SECRET) -> list[str]:
    found = [f for f in every_form(secret) if f in text]
    # The middle of a base64 form (its edges depend on the bytes around the key).
    for skip in range(3):
        chunk = secret.encode()[skip:][:12]
        found += [enc(chunk).decode() for enc in (base64.b64encode, base64.urlsafe_b64encode)
                  if enc(chunk).decode() in text]
    return found


# --- configs ------------------------------------------------------------------------------------


def write_yaml(path: Path, roster: str) -> Path:
    path.write_text(f"name: t\nboards: [{{preset: std-12-guard}}]\ndeals: 1\nroster:\n{roster}", encoding="utf-8")
    return path


@pytest.mark.parametrize("entry", [
    f"  - {{label: a, agent: 'openai:gpt-4o-mini', options: {{api_key: '{SECRET}'}}}}\n",
    f"  - {{label: a, agent: 'openai:gpt-4o-mini', options: {{base_url: 'https://me:{SECRET}@api.example/v1'}}}}\n",
    f"  - {{label: a, agent: 'langchain:openai:gpt', options: {{model_kwargs: {{openai_api_key: '{SECRET}'}}}}}}\n",
    f"  - {{label: a, agent: 'local:m@http://me:{SECRET}@127.0.0.1:8080/v1'}}\n",
    f"  - {{label: a, agent: 'openai:gpt-4o-mini', options: {{base_url: 'https://gw.example/v1?api_key={quote(SECRET, safe='')}'}}}}\n",
])
def test_a_tournament_config_with_a_credential_is_refused_without_echoing_it(tmp_path: Path, entry: str) -> None:
    path = write_yaml(tmp_path / "t.yaml", entry + "  - {label: b, agent: 'bot:random'}\n")
    with pytest.raises(TournamentError, match="not accepted|user name, password or key") as info:
        load_config(path)
    assert not leaked(str(info.value))


def test_tournament_json_is_scrubbed_even_of_an_option_that_slipped_through() -> None:
    # A config object built around validation (a future option name the refusal does not know).
    entry = RosterEntry.model_construct(label="a", agent=f"local:m@http://me:{SECRET}@h/v1",
                                        options={"token": SECRET, "nested": {"url": f"https://x:{SECRET}@h"}})
    cfg = TournamentConfig.model_construct(**{**TournamentConfig(roster=[{"label": "b", "agent": "bot:random"}],
                                                                 boards=[{"preset": "std-12-guard"}]).__dict__,
                                              "roster": [entry]})
    text = json.dumps(persisted_config(cfg))
    assert not leaked(text)
    assert scrub({"a": [f"http://u:{SECRET}@h"], "api_key": SECRET}) == {"a": ["http://***@h"], "api_key": "***"}


# --- URLs with user info ------------------------------------------------------------------------


def test_a_base_url_with_user_info_is_refused_everywhere(monkeypatch) -> None:
    for make in (lambda: make_agent("openai:gpt-4o-mini", seat=1, base_url=f"http://me:{SECRET}@127.0.0.1:9/v1"),
                 lambda: make_agent(f"local:m@http://me:{SECRET}@127.0.0.1:9/v1", seat=1)):
        with pytest.raises(ProviderConfigError, match="user name, password or key") as info:
            make()
        assert not leaked(str(info.value))
    with pytest.raises(ProviderConfigError, match="user name, password or key") as info:
        make_agent("openai:gpt-4o-mini", seat=1, base_url=f"https://gw.example/v1?key={SECRET}")
    assert not leaked(str(info.value))
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://me:{SECRET}@127.0.0.1:9/v1")
    with pytest.raises(ProviderConfigError, match="OPENAI_BASE_URL") as info:
        make_agent("openai:gpt-4o-mini", seat=1)
    assert not leaked(str(info.value))


# --- redaction ----------------------------------------------------------------------------------


@pytest.mark.parametrize("form", range(len(every_form(SECRET))))
def test_redact_catches_every_encoding_of_a_known_key(form: int) -> None:
    remember_secret(SECRET)
    encoded = every_form(SECRET)[form]
    for text in (encoded, f"Authorization: Basic {encoded}", f'{{"echo": "{encoded}", "n": 1}}', f"x{encoded}y"):
        assert not leaked(redact(text)), (form, text)


def test_redact_strips_user_info_from_any_url() -> None:
    assert redact("see https://someone:hunter2-long@api.example.com/v1") == "see https://***@api.example.com/v1"
    assert redact("GET https://gw.example/v1?region=eu&key=abc123xyz&x=1") == "GET https://gw.example/v1?region=eu&key=***&x=1"


def test_a_server_echoing_the_auth_header_leaves_no_form_of_the_key_in_transcript_or_html(tmp_path: Path) -> None:
    """The server answers 400 and echoes the request's credentials in every form (as a misconfigured
    proxy does); the transcript and the replay page must hold none of them. (A 401 stops the game
    at once: its one-line message must hold none of them either.)"""
    from arena.engine import GameSetup
    from arena.referee import run_game
    from arena.transcript import TranscriptWriter
    from arena.viewer import build_view_data, render_html

    def echo(body, headers):  # type: ignore[no-untyped-def]
        auth = headers.get("authorization", "")
        token = auth.partition(" ")[2]
        text = " ".join([auth, base64.b64encode(f"user:{token}".encode()).decode(), quote(token, safe=""),
                         token.encode().hex()])
        return Reply(status=status, body={"error": {"message": f"invalid credentials: {text}", "type": "auth"}})

    def play(path: Path) -> Exception | None:
        agents = [make_agent("openai:gpt-4o-mini", seat=s, base_url=srv.url + "/v1", timeout=5.0, max_retries=0)
                  for s in range(1, 13)]
        with TranscriptWriter(path) as writer:
            try:
                asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=1), agents, writer=writer,
                                     specs=["openai:gpt-4o-mini"] * 12))
            except SeatUnreachable as exc:
                return exc
        return None

    status = 400
    with LoopbackServer() as srv:
        srv.default = echo  # type: ignore[assignment]
        assert play(tmp_path / "g.jsonl") is None and srv.seen
        status = 401
        stopped = play(tmp_path / "stopped.jsonl")
    text = (tmp_path / "g.jsonl").read_text(encoding="utf-8")
    assert "invalid credentials" in text, "the server's error reached the transcript"
    assert not leaked(text)
    assert not leaked(render_html(build_view_data(tmp_path / "g.jsonl")))
    assert isinstance(stopped, SeatUnreachable) and "invalid credentials" in str(stopped)
    assert not leaked(str(stopped))


# --- the keys file ------------------------------------------------------------------------------


@pytest.mark.parametrize("content,expected", [
    (f"openai: {{api_key: '{SECRET}'\n", "not valid YAML at line"),
    (f"- {SECRET}\n", "expected a mapping of provider names"),
    (f"openai: {SECRET}\n", "openai: expected a mapping"),
    ("openai: {api_key: 12}\n", "openai: api_key must be a non-empty string"),
    (b"\xff\xfe openai", "not UTF-8"),
])
def test_a_broken_keys_file_is_an_error_naming_it_never_a_placeholder_key(monkeypatch, tmp_path: Path,
                                                                          content, expected) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    keys = tmp_path / "keys.yaml"
    keys.write_bytes(content if isinstance(content, bytes) else content.encode())
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", str(keys))
    for spec in ("openai:gpt-4o-mini", "local:m@http://127.0.0.1:9/v1"):  # local would use a placeholder key
        with pytest.raises(ProviderConfigError, match=expected) as info:
            make_agent(spec, seat=1)
        assert str(keys) in str(info.value) and not leaked(str(info.value))


def test_the_cli_reports_a_broken_keys_file_in_one_line_with_exit_2(tmp_path: Path) -> None:
    keys = tmp_path / "keys.yaml"
    keys.write_text(f"openai: {{api_key: '{SECRET}'\n", encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "WEREWOLF_ARENA_KEYS": str(keys), "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "arena", "play", "--agents", "openai:gpt-4o-mini", "--quiet",
                           "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "keys file" in proc.stderr and "not valid YAML" in proc.stderr and not leaked(proc.stderr + proc.stdout)
