"""What every command shares: turning known errors into one clear line and exit code 2."""

from __future__ import annotations

import functools
import os
import select
import sys
import traceback
from typing import Any, Callable, NoReturn, TypeVar

import typer

F = TypeVar("F", bound=Callable[..., Any])
#: A bad option value (``typer.BadParameter``) is a usage error: click prints it with the usage line and
#: exits 2. Found through the class, because newer typer releases bring their own copy of click.
USAGE_ERROR: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def known_errors() -> tuple[type[BaseException], ...]:
    from agents.providers.base import ProviderConfigError
    from agents.registry import AgentSpecError
    from arena.config import ConfigError
    from arena.engine import SetupError
    from arena.scenario import ScenarioError
    from arena.transcript import TranscriptError

    # ProviderConfigError: a missing key or a missing optional SDK package is the user's to fix.
    return (ConfigError, SetupError, AgentSpecError, ProviderConfigError, TranscriptError, ScenarioError,
            FileNotFoundError)


def friendly(func: F) -> F:
    """Bad input gets a message that names what is wrong, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except known_errors() as exc:
            typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
            raise typer.Exit(2) from None
        except (typer.Exit, typer.Abort, USAGE_ERROR, KeyboardInterrupt, SystemExit):
            raise
        except BrokenPipeError as exc:
            if not stdout_reader_gone():  # a socket's broken pipe is an error like any other
                _internal_error(exc)
            # the output was piped into `head` or a pager that closed: not an error
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            raise typer.Exit(0) from None
        except Exception as exc:  # a bug of ours: one line, the details only on request
            _internal_error(exc)

    return wrapper  # type: ignore[return-value]


def _internal_error(exc: BaseException) -> NoReturn:
    if os.environ.get("ARENA_DEBUG"):
        traceback.print_exception(exc)
    typer.secho(f"internal error: {type(exc).__name__}: {exc} (set ARENA_DEBUG=1 for the traceback; "
                "transcripts written so far are complete up to their last line)", err=True,
                fg=typer.colors.RED)
    raise typer.Exit(3) from None


def stdout_reader_gone() -> bool:
    """Whether standard output is a pipe whose reader has closed (``arena ... | head``). Only then may
    a broken pipe silence the output: one from a model's socket must not send this process's own
    output to /dev/null. Without poll (Windows) a broken pipe is taken as the reader gone, as before."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # captured output (tests): not a pipe
        return False
    if not hasattr(select, "poll"):
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
