"""The command the user typed to start Stepwise: the one owner of the hints' program name
("continue with: ./run.sh resume DIR", not `python -m app` to a user who never typed that)."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from app.core.platform import is_windows

# run.sh and run.cmd set it to how they were called ($0, %0): the hint works where it was typed.
PROGRAM_VARIABLE = "STEPWISE_PROGRAM"
# The installed layout (installer/windows/launcher.c): stepwise-cli.exe starts python\python.exe
# -m app from its own folder, so a Python in a folder named python beside it was started by it.
CLI_LAUNCHER = "stepwise-cli.exe"
MODULE = "python -m app"


def program() -> str:
    """The program part of a command line the user can type again."""
    given = os.environ.get(PROGRAM_VARIABLE, "").strip()
    if given:
        return quoted(given)
    python = Path(sys.executable)
    if python.parent.name.lower() == "python" and (python.parent.parent / CLI_LAUNCHER).is_file():
        return CLI_LAUNCHER
    return MODULE


def typed(*words: object) -> str:
    """`program() WORDS…`, each word quoted as the user's shell needs it."""
    return " ".join([program(), *(quoted(str(word)) for word in words)])


def quoted(word: str) -> str:
    if is_windows():  # cmd.exe: double quotes around a word with a space or a special
        return f'"{word}"' if any(c in word for c in " &()^;,%") else word
    return shlex.quote(word)
