"""The error classes every layer raises for problems a user can fix.

Messages are templates so the UI can translate them: ``message`` and ``fix`` are plain English
strings with ``{name}`` placeholders (never f-strings), filled from ``values`` (and ``{path}``).
The UI translates the template (Qt context "errors") before filling it in; the CLI and logs use
the English template. A raise site reads::

    raise InputError("Cannot read the image {path}: {reason}.", path=p,
                     fix="Open a PNG, JPEG or WebP file.", values={"reason": why})
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

ERROR_CONTEXT = "errors"  # the translation context of every message and fix template


def _identity(text: str) -> str:
    return text


class StepwiseError(Exception):
    """A failure with a message meant for the user: what went wrong, which file, what to do."""

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        fix: str | None = None,
        values: Mapping[str, object] | None = None,
    ):
        self.message = message
        self.path = Path(path) if path is not None else None
        self.fix = fix
        self.values: dict[str, object] = dict(values or {})
        super().__init__(self.user_message())

    def _fill(self, template: str, translate: Callable[[str], str]) -> str:
        text = translate(template)
        if not self.values and "{path}" not in text:
            return text
        fields = {"path": self.path if self.path is not None else "", **self.values}
        try:
            return text.format(**fields)
        except (KeyError, IndexError, ValueError):
            # A translation with a wrong placeholder must not hide the error itself.
            return template.format(**fields) if translate is not _identity else template

    def user_message(self, translate: Callable[[str], str] | None = None) -> str:
        """The whole text: message, the file when the message does not name it, the fix.
        `translate` maps a template to its translation (the UI passes Qt's translate)."""
        tr = translate or _identity
        text = self._fill(self.message, tr)
        if self.path is not None and str(self.path) not in text:
            text += f" ({self.path})"
        if self.fix:
            text += " " + self._fill(self.fix, tr)
        return text


def error_text(exc: BaseException, translate: Callable[[str], str] | None = None) -> str:
    """The user's text for any exception: a StepwiseError's templates filled in (translated
    by `translate` first: the UI and the jobs layer pass Qt's translate in context "errors"),
    anything else its own str() (or its class name when that is empty)."""
    if isinstance(exc, StepwiseError):
        return exc.user_message(translate)
    return str(exc) or type(exc).__name__


class InputError(StepwiseError):
    """An input file is missing, unreadable, of the wrong kind or inconsistent."""


class OutputError(StepwiseError):
    """An output could not be written (unwritable folder, disk full)."""


class DamagedFileError(StepwiseError):
    """A file we wrote earlier fails verification (truncated, wrong hash, bad format)."""
