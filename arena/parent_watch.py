"""Pool workers that end with the process that started them.

A process-pool worker waits on a queue whose writing end it holds itself, so it never notices the
main process being killed; and the forkserver lives as long as any worker does. Both would run on
forever. :func:`watch_parent`, run as the pool's initializer, ends the worker when the main process
is gone (what it was playing is a ``.part`` file that ``--resume`` discards and replays).
"""

from __future__ import annotations

import os
import threading
import time


def _stat_fields(pid: int) -> list[bytes]:
    """The fields of ``/proc/PID/stat`` after the command name (state first)."""
    with open(f"/proc/{pid}/stat", "rb") as fh:
        return fh.read().rsplit(b")", 1)[1].split()


def process_identity(pid: int | None = None) -> tuple[int, bytes | None]:
    """(pid, start time) of a process: the start time tells a reused pid from the process itself."""
    pid = os.getpid() if pid is None else pid
    try:
        return pid, _stat_fields(pid)[19]  # field 22 of stat(5): start time in clock ticks after boot
    except (OSError, IndexError):
        return pid, None  # no /proc: the pid alone


def _process_gone(pid: int, started: bytes | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, but someone else's: a reused pid
        return True
    if started is None:
        return False
    try:
        fields = _stat_fields(pid)
    except OSError:
        return True
    return fields[0] in (b"Z", b"X") or fields[19] != started  # a zombie, or a new process on the old pid


def watch_parent(pid: int, started: bytes | None, interval: float = 0.5) -> None:
    """Start a daemon thread that ends this process once process ``pid`` (started at ``started``) is gone."""

    def watch() -> None:
        while not _process_gone(pid, started):
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()
