"""What every command shares: turning known errors into one clear line and exit code 2."""

from __future__ import annotations

import functools
import os
import traceback
from typing import Any, Callable, TypeVar

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
        except BrokenPipeError:  # the output was piped into `head` or a pager that closed: not an error
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            raise typer.Exit(0) from None
        except Exception as exc:  # a bug of ours: one line, the details only on request
            if os.environ.get("ARENA_DEBUG"):
                traceback.print_exc()
            typer.secho(f"internal error: {type(exc).__name__}: {exc} (set ARENA_DEBUG=1 for the traceback; "
                        "transcripts written so far are complete up to their last line)", err=True,
                        fg=typer.colors.RED)
            raise typer.Exit(3) from None

    return wrapper  # type: ignore[return-value]
