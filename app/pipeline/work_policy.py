"""When the queue's worker may use the computer: the work policy and its verdict.

Modes (`Settings.work.mode`, `queue run --when`):

- ALWAYS: today's behaviour, the worker runs whenever it has a job;
- IDLE: only after no keyboard or mouse input for `idle_minutes` (app/core/platform_idle.py);
- HOURS: only inside a window of the clock, "01:00-07:00" (it may cross midnight).

`not_on_battery` adds: never while the computer runs on battery. The verdict is data (a reason
code and its values); the CLI (app/cli/texts.py) and the UI (tr()) word it. Pure: the clock,
the idle time and the battery are given (app/pipeline/queue/work_gate.py reads them).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from dataclasses import dataclass

from app.core.errors import InputError
from app.core.settings import WorkSettings

log = logging.getLogger(__name__)

ALWAYS = "always"
IDLE = "idle"
HOURS = "hours"
MODES = (ALWAYS, IDLE, HOURS)
DEFAULT_IDLE_MINUTES = WorkSettings.idle_minutes  # the defaults are the settings'
DEFAULT_HOURS = WorkSettings.hours
MAX_IDLE_MINUTES = 24 * 60

# Why the worker waits (Verdict.reason).
AT_COMPUTER = "at_computer"  # input within the last idle_minutes
NO_IDLE_SOURCE = "no_idle_source"  # this computer cannot tell idle time: the worker waits
OUTSIDE_HOURS = "outside_hours"  # values: until ("01:00")
ON_BATTERY = "on_battery"
REASONS = (AT_COMPUTER, NO_IDLE_SOURCE, OUTSIDE_HOURS, ON_BATTERY)

_HOURS_RE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")

BAD_WHEN_MESSAGE = '"{value}" is not a work policy for the queue'
BAD_WHEN_FIX = "Use always, idle or hours as HH:MM-HH:MM (for example 01:00-07:00)."
BAD_IDLE_MESSAGE = "The idle time must be from 1 to {most} minutes, not {value}"
BAD_IDLE_FIX = "Give the minutes without input after which the queue may run (for example 10)."


@dataclass(frozen=True)
class WorkPolicy:
    mode: str = ALWAYS
    idle_minutes: int = DEFAULT_IDLE_MINUTES
    start_minute: int = 60  # minutes after midnight (HOURS)
    end_minute: int = 7 * 60
    not_on_battery: bool = False

    @property
    def hours(self) -> str:
        return f"{_clock(self.start_minute)}-{_clock(self.end_minute)}"

    def to_json(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            "idle_minutes": self.idle_minutes,
            "hours": self.hours,
            "not_on_battery": self.not_on_battery,
        }


@dataclass(frozen=True)
class Verdict:
    """May the worker run now; if not, why (a REASONS code) and its values."""

    work: bool
    reason: str = ""
    until: str = ""  # OUTSIDE_HOURS: the clock time the window opens


GO = Verdict(True)


def _clock(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"


def parse_hours(text: str) -> tuple[int, int]:
    """'01:00-07:00' → (60, 420); an InputError naming the value otherwise."""
    m = _HOURS_RE.match(text)
    if m:
        h1, m1, h2, m2 = (int(g) for g in m.groups())
        if h1 < 24 and h2 < 24 and m1 < 60 and m2 < 60 and (h1, m1) != (h2, m2):
            return h1 * 60 + m1, h2 * 60 + m2
    raise InputError(BAD_WHEN_MESSAGE, fix=BAD_WHEN_FIX, values={"value": text})


def policy_of(
    mode: str, idle_minutes: int = DEFAULT_IDLE_MINUTES, hours: str = DEFAULT_HOURS,
    not_on_battery: bool = False,
) -> WorkPolicy:  # fmt: skip
    """A policy from its parts (Settings.work, the CLI); `mode` may be "HH:MM-HH:MM" itself."""
    if not 1 <= idle_minutes <= MAX_IDLE_MINUTES:
        raise InputError(
            BAD_IDLE_MESSAGE,
            fix=BAD_IDLE_FIX,
            values={"most": MAX_IDLE_MINUTES, "value": idle_minutes},
        )
    if mode not in MODES:
        hours, mode = mode, HOURS
    start, end = parse_hours(hours)
    return WorkPolicy(mode, idle_minutes, start, end, not_on_battery)


def policy_from_settings(work: WorkSettings) -> WorkPolicy:
    """The remembered policy; a damaged entry is logged and read as "always"."""
    try:
        return policy_of(work.mode, work.idle_minutes, work.hours, work.not_on_battery)
    except InputError as exc:
        log.warning("settings: the work policy is damaged (%s); using always", exc)
        return WorkPolicy(not_on_battery=work.not_on_battery)


def to_settings(policy: WorkPolicy) -> WorkSettings:
    return WorkSettings(policy.mode, policy.idle_minutes, policy.hours, policy.not_on_battery)


def in_hours(policy: WorkPolicy, now: dt.datetime) -> bool:
    minute = now.hour * 60 + now.minute
    start, end = policy.start_minute, policy.end_minute
    if start < end:
        return start <= minute < end
    return minute >= start or minute < end  # across midnight


def verdict(
    policy: WorkPolicy, now: dt.datetime, idle_s: float | None, battery: bool | None
) -> Verdict:
    """The policy's answer at `now` with the idle seconds (None: not known) and the battery
    (True: on battery, None: no battery)."""
    if policy.not_on_battery and battery is True:
        return Verdict(False, ON_BATTERY)
    if policy.mode == IDLE:
        if idle_s is None:
            return Verdict(False, NO_IDLE_SOURCE)
        if idle_s < policy.idle_minutes * 60:
            return Verdict(False, AT_COMPUTER)
    if policy.mode == HOURS and not in_hours(policy, now):
        return Verdict(False, OUTSIDE_HOURS, _clock(policy.start_minute))
    return GO
