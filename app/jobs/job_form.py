"""The job form: one typed field per row of app.pipeline.job.params.PARAMS, nothing hand-written.

Each field has a `<name>_changed` signal (carrying the new value) and `changed(name, value)`
fires for every one. Widgets bind to fields (app/ui/kit/bind.py); the Prepare panel and the
generate setup bind to the same `align`, `fill`, `only_masked`, `padding` and `feather`.
Values that `persist` are handed to a saver, debounced, when they change.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from PySide6.QtCore import QObject, QTimer, Signal, SignalInstance

from app.core.errors import error_text
from app.jobs.run_state import user_text
from app.pipeline.job.params import BY_NAME, PARAMS, Param, check_value, clean_values

log = logging.getLogger(__name__)

T = TypeVar("T", int, float, str, bool)
SAVE_DELAY_MS = 400

Saver = Callable[[dict[str, Any]], None]


def _signals() -> dict[str, Any]:
    return {f"{p.name}_changed": Signal(p.kind) for p in PARAMS}


# The per-field signals are generated from the table: a new Param gets its signal here.
_FormSignals = cast(type[QObject], type("_FormSignals", (QObject,), _signals()))


class JobForm(_FormSignals):  # type: ignore[misc, valid-type]
    """Every parameter of the next job, typed; the one owner of the form's values."""

    changed = Signal(str, object)  # name, value (after the field's own signal)
    save_failed = Signal(str)  # the saver raised: its message in the UI's language (logged)

    def __init__(
        self,
        values: Mapping[str, object] | None = None,
        *,
        saver: Saver | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._values, self.replaced = clean_values(values or {})
        if self.replaced:  # shown by the window (app/ui/job_settings.report_form_problems)
            log.warning("Saved settings replaced by their defaults: %s", ", ".join(self.replaced))
        self._saver = saver
        self._save_timer = QTimer(self)
        self._save_timer.setSingleShot(True)
        self._save_timer.setInterval(SAVE_DELAY_MS)
        self._save_timer.timeout.connect(self.save_now)

    # --- typed access -----------------------------------------------------------------------

    def get(self, p: Param[T]) -> T:
        return cast(T, self._values[p.name])

    def set(self, p: Param[T], value: T) -> bool:
        """Sets one field (ValueError for a wrong kind, choice or range); True if it changed."""
        ok, checked = check_value(BY_NAME[p.name], value)
        if not ok:
            raise ValueError(f"{p.name}: {value!r} is not allowed")
        value = checked
        if self._values[p.name] == value and type(self._values[p.name]) is type(value):
            return False
        self._values[p.name] = value
        self.signal(p).emit(value)
        self.changed.emit(p.name, value)
        if p.persist and self._saver is not None:
            self._save_timer.start()
        return True

    def signal(self, p: Param) -> SignalInstance:
        """The `<name>_changed` signal of a field."""
        return cast(SignalInstance, getattr(self, f"{p.name}_changed"))

    def values(self) -> dict[str, Any]:
        """A copy of every value (name → value)."""
        return dict(self._values)

    def update(self, values: Mapping[str, object]) -> list[str]:
        """Sets several fields (an sd-cli import, a resumed run's spec); unknown names are
        ignored and bad values skipped. Returns the names that were refused."""
        refused: list[str] = []
        for name, value in values.items():
            p = BY_NAME.get(name)
            if p is None:
                continue
            try:
                self.set(p, value)
            except ValueError:
                refused.append(name)
        return refused

    # --- persistence ------------------------------------------------------------------------

    def persisted(self) -> dict[str, Any]:
        """The values remembered between sessions."""
        return {p.name: self._values[p.name] for p in PARAMS if p.persist}

    @property
    def save_pending(self) -> bool:
        return self._save_timer.isActive()

    def save_now(self) -> None:
        """Hands the persisted values to the saver now (also what the debounce timer calls)."""
        self._save_timer.stop()
        if self._saver is None:
            return
        try:
            self._saver(self.persisted())
        except Exception as exc:  # a failed save is reported, never raised
            log.warning("The settings could not be saved: %s", error_text(exc), exc_info=exc)
            self.save_failed.emit(user_text(exc))
