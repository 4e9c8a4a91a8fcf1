"""Composition root: `python -m app` opens the GUI; `python -m app COMMAND` runs headless."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from app.core import platform

    platform.utf8_output()  # a path with 模型 printed to a pipe on Windows; pythonw's no streams
    args = list(sys.argv[1:] if argv is None else argv)
    if args and (args[0] in _cli_commands() or args[0] in ("-h", "--help")):
        from app import cli

        return cli.main(args)
    return run_gui(args)


def _cli_commands() -> tuple[str, ...]:
    from app.cli import COMMANDS

    return COMMANDS


def run_gui(args: list[str]) -> int:
    """Builds paths, settings, the QApplication, translations and the main window."""
    from app.ui.shell.application import run_application

    return run_application(args)


if __name__ == "__main__":
    sys.exit(main())
