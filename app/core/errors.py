"""The error classes every layer raises for problems a user can fix."""

from __future__ import annotations

from pathlib import Path


class StepwiseError(Exception):
    """A failure with a message meant for the user: what went wrong, which file, what to do."""

    def __init__(self, message: str, *, path: Path | str | None = None, fix: str | None = None):
        self.message = message
        self.path = Path(path) if path is not None else None
        self.fix = fix
        super().__init__(self.user_message())

    def user_message(self) -> str:
        parts = [self.message]
        if self.path is not None and str(self.path) not in self.message:
            parts.append(f"({self.path})")
        text = " ".join(parts)
        if self.fix:
            text += f" {self.fix}"
        return text


class InputError(StepwiseError):
    """An input file is missing, unreadable, of the wrong kind or inconsistent."""


class OutputError(StepwiseError):
    """An output could not be written (unwritable folder, disk full)."""


class DamagedFileError(StepwiseError):
    """A file we wrote earlier fails verification (truncated, wrong hash, bad format)."""
