"""``arena tournament --executor ray``: each game is a Ray task on the user's cluster.

Imported only when that executor is chosen (Ray is the optional extra ``[ray]``), so nobody without
Ray ever imports it. The division of labour keeps every guarantee of the local executors:

* a task gets the scheduled game as JSON and returns the finished transcript as text (plus the
  winner, tokens and cost); it never touches the output folder, which may not even exist on the
  node that runs it;
* the driver (this process) writes the index, stores each returned transcript through ``.part`` and
  an atomic rename, and drives the progress display, so ``--resume`` and ``arena merge`` work exactly
  as with the process executor: a game whose result never came back is simply replayed.

The tournament's shared rate limits live in one Ray actor (``arena-ratelimit-<run>``) that every
task's provider calls consult, so the whole cluster keeps to each account's allowance.

Nodes need this package (same version: the transcript header records it) and the agents'
dependencies installed, or a ``runtime_env`` set up by the user's cluster config.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from arena import ratelimit
from arena.executors import GameJob, GameOutcome, ScheduledGame, TournamentError, play_to_text, store_transcript

try:
    import ray
except ImportError:  # pragma: no cover - exercised only without the extra
    raise TournamentError("--executor ray needs Ray: pip install 'werewolf-arena[ray]'") from None


def _check_reachable(address: str) -> None:
    """Fail in seconds on an address nobody answers at: Ray itself keeps retrying for minutes."""
    import socket

    target = address.removeprefix("ray://")
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit() or address in ("auto", "local"):
        return  # "auto" and friends: Ray's own lookup
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise TournamentError(f"cannot reach the Ray cluster at {address}: {exc.strerror or exc}") from None


def _reclaim_sigterm(before: Any) -> None:
    """``ray.init`` takes SIGTERM in the driver twice over: its core's C++ handler (a stack dump) and
    a Python one (``sys.exit(15)``). Put back the Python handler there was before (the CLI's, which
    unwinds the run and prints the --resume hint); with none, keep Ray's, minus the stack dump."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        handler = before if callable(before) else signal.getsignal(signal.SIGTERM)
        if handler is not None:
            signal.signal(signal.SIGTERM, handler)


class RayExecutor:
    """Connects to (or starts) a Ray instance and plays games as tasks (an :class:`arena.executors.Executor`).

    ``address``: a cluster address (``ray://host:10001``, ``host:6379``, ``auto``); default
    ``RAY_ADDRESS``, else a Ray instance already running on this machine, else a new local one. A
    Ray session this process had already initialised (a test, a notebook) is used as it is and left
    running.
    """

    def __init__(self, job: GameJob, address: str | None = None, task_cpus: float = 1.0,
                 accounts: dict[str, Any] | None = None):
        self.job = job
        self.owns_session = not ray.is_initialized()
        if self.owns_session:
            address = address or os.environ.get("RAY_ADDRESS") or None
            if address is not None:
                _check_reachable(address)
            options: dict[str, Any] = {"log_to_driver": False}  # worker chatter would tear the progress display
            if address is None:
                options["include_dashboard"] = False  # a local instance for one run needs no web UI
            import signal

            sigterm_before = signal.getsignal(signal.SIGTERM)
            try:
                ray.init(address=address, **options)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                raise TournamentError(f"cannot connect to Ray at {address or 'a local instance'}: {exc}") from None
            _reclaim_sigterm(sigterm_before)
        self.task_cpus = task_cpus
        # Retries cover a lost worker or node only (not a game's own exception); a game is deterministic
        # and only the driver writes, so a retried game cannot be stored twice or differently.
        self._remote: Any = ray.remote(num_cpus=task_cpus, max_retries=3)(play_to_text)
        self._limiter = None
        self.limits_json = None
        self.limited_calls: int | None = None  # calls the limiter actor let through (known after close)
        if accounts:
            name = f"arena-ratelimit-{os.getpid()}-{id(self):x}"
            self._limiter = ratelimit.start_ray_actor(name)
            self.limits_json = ratelimit.LimitsSetup(accounts=accounts, backend=f"ray:{name}").model_dump_json()
            ratelimit.install_json(self.limits_json)  # a watched game plays in this process
    def slots(self) -> int:
        """How many games the cluster runs at once with ``task_cpus`` each (at least one)."""
        cpus = float(ray.cluster_resources().get("CPU", 1.0))
        return max(1, int(cpus // self.task_cpus) if self.task_cpus > 0 else int(cpus))

    async def play(self, game: ScheduledGame) -> GameOutcome:
        """Play one game on the cluster and store its transcript in the output folder."""
        ref = self._remote.options(name=f"arena-game:{game.game_id}").remote(
            game.model_dump_json(), self.job.factory_path, self.job.lang, self.limits_json)
        try:
            text, winner, tokens, cost = await ref
        except asyncio.CancelledError:
            # Ctrl-C or a failing driver: free the cluster; the game stays unfinished in the index.
            ray.cancel(ref, force=True)
            raise
        store_transcript(self.job.out, game.game_id, text)
        return GameOutcome(winner, tokens, cost)

    def close(self) -> None:
        if self._limiter is not None:
            ratelimit.install(None)
            try:
                self.limited_calls = ray.get(self._limiter.granted_calls.remote(), timeout=10)
            except Exception:  # a lost actor only loses this count
                self.limited_calls = None
            ray.kill(self._limiter)
            self._limiter = None
        if self.owns_session and ray.is_initialized():
            ray.shutdown()
