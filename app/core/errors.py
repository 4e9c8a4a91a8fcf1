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

    def fields(self) -> dict[str, object]:
        """The values the templates are filled from ({path} included when there is one)."""
        return {"path": self.path if self.path is not None else "", **self.values}

    def user_message(
        self,
        translate: Callable[[str], str] | None = None,
        *,
        values: Mapping[str, object] | None = None,
    ) -> str:
        """The whole text: message, the file when the message does not name it, the fix.
        `translate` maps a template to its translation (the UI passes Qt's translate);
        `values`, when given, replace the error's own (the UI's words for a parameter)."""
        fields = self.fields() if values is None else {**self.fields(), **values}
        return render_error(self.message, fields, translate, fix=self.fix)


def fill_template(
    template: str, fields: Mapping[str, object], translate: Callable[[str], str] | None = None
) -> str:
    """`template` translated, then filled from `fields`; a translation with a wrong placeholder
    falls back to the English template, never hiding the error itself."""
    tr = translate or _identity
    text = tr(template)
    if not (fields.keys() - {"path"}) and "{path}" not in text:
        return text
    try:
        return text.format(**fields)
    except (KeyError, IndexError, ValueError):
        try:
            return template.format(**fields)
        except (KeyError, IndexError, ValueError):
            return template


def render_error(
    message: str,
    fields: Mapping[str, object],
    translate: Callable[[str], str] | None = None,
    *,
    fix: str | None = None,
) -> str:
    """A message template filled in, the file added when the message does not name it, then
    the fix (when given). Errors and the failures recorded from them (run.json) share it."""
    text = fill_template(message, fields, translate)
    path = str(fields.get("path") or "")
    if path and path not in text:
        text = _join(WITH_PATH, translate, message=text, path=path)
    if fix:
        text = _join(WITH_FIX, translate, message=text, fix=fill_template(fix, fields, translate))
    return text


# How the pieces of an error are joined: templates too, so a language that writes no space
# after a full stop (简体中文: "…。请…") joins them its own way.
WITH_PATH = "{message} ({path})"
WITH_FIX = "{message} {fix}"


def _join(template: str, translate: Callable[[str], str] | None, **parts: str) -> str:
    text = (translate or _identity)(template)
    try:
        return text.format(**parts)
    except (KeyError, IndexError, ValueError):
        return template.format(**parts)


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


class DiskFullError(OutputError):
    """No room on the disk for what must be written (a queue worker stops, the job waits)."""


class DamagedFileError(StepwiseError):
    """A file we wrote earlier fails verification (truncated, wrong hash, bad format)."""
