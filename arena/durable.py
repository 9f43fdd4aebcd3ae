"""Files that survive a kill: whole-file replacement, appends after a torn line, and one runner per folder.

* :func:`write_atomic` writes a temporary file beside the target, fsyncs it, renames it over the
  target and fsyncs the directory: a reader sees the old file or the new one, never an empty or
  half-written one, even after a power cut.
* :func:`cut_torn_tail` drops an unfinished last line (a process killed mid-append) so that the next
  append starts a line of its own instead of being glued to the torn one.
* :class:`FolderLock` holds an exclusive ``flock`` on ``FOLDER/.lock`` for as long as a runner works
  there; the kernel releases it when the process dies, so a killed runner never leaves a stale lock.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # a platform without directory handles (Windows): the rename is all we get
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` (UTF-8) in one step: temp file, fsync, rename, fsync the folder."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)


def cut_torn_tail(path: Path) -> int:
    """Truncate ``path`` after its last newline; returns the bytes dropped (0 when the file ends
    cleanly or does not exist)."""
    try:
        fh = open(path, "rb+")
    except FileNotFoundError:
        return 0
    with fh:
        size = fh.seek(0, os.SEEK_END)
        if size == 0:
            return 0
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return 0
        # Walk back in blocks to the last newline (a torn line is short; the file may be long).
        end = size
        keep = 0
        while end > 0:
            start = max(0, end - 65536)
            fh.seek(start)
            block = fh.read(end - start)
            at = block.rfind(b"\n")
            if at >= 0:
                keep = start + at + 1
                break
            end = start
        fh.truncate(keep)
        fh.flush()
        os.fsync(fh.fileno())
        return size - keep


class FolderBusy(Exception):
    """Another live process holds the folder's lock."""

    def __init__(self, folder: Path, holder: str):
        self.folder = folder
        self.holder = holder
        super().__init__(f"{folder} is in use by another runner ({holder})")


class FolderLock:
    """``with FolderLock(folder): ...``: an exclusive, non-blocking lock on ``folder/.lock``."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.path = self.folder / ".lock"
        self._fd: int | None = None

    def acquire(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            _lock(fd)
        except OSError:
            try:
                holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown process"
            except OSError:
                holder = "unknown process"
            os.close(fd)
            raise FolderBusy(self.folder, holder) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the descriptor drops the lock

    def __enter__(self) -> "FolderLock":
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _lock(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
