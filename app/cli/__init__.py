"""Headless commands over the same code the GUI uses: prepare, composite, run, resume, status,
selftest. `python -m app COMMAND --help` explains each.

This package owns all parsing (parser.py, run_flags.py), printing, signal handling
(execute.py), the English texts (texts.py) and the exit codes (exits.py). It never imports Qt.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from app.cli.build_wait import wait_for_engine
from app.cli.exits import Exit, exit_for
from app.cli.parser import COMMANDS, build_parser
from app.core.errors import StepwiseError
from app.core.logs import setup_logging
from app.core.paths import app_paths

__all__ = ["COMMANDS", "Exit", "build_parser", "main"]

Handler = Callable[[argparse.Namespace], int]


def _handler(name: str) -> Handler:
    if name.startswith("queue_"):
        from app.cli import queue_commands

        return getattr(queue_commands, f"cmd_{name.removeprefix('queue_')}")
    if name == "measure":
        from app.cli import measure_command

        return measure_command.cmd_measure
    if name in ("prepare", "composite"):
        from app.cli import imaging_commands

        return getattr(imaging_commands, f"cmd_{name}")
    from app.cli import commands

    return getattr(commands, f"cmd_{name}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return Exit.USAGE
    try:
        setup_logging(app_paths().log_dir, verbose=args.verbose)
    except OSError:
        pass  # a read-only home must not stop a headless command
    try:
        wait_for_engine(args)  # the first start builds the engine in the background
        return int(_handler(args.handler)(args))
    except StepwiseError as exc:
        from app.cli.texts import error_line

        print(error_line(exc), file=sys.stderr)
        return exit_for(exc)
    except BrokenPipeError:  # `status | head`: the reader went away, nothing is wrong
        _quiet_stdout()
        return Exit.OK
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return Exit.INTERRUPTED


def _quiet_stdout() -> None:
    """After a broken pipe: stdout goes nowhere, so Python's flush at exit says nothing."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
