"""The queue's work policy in the window's words (tr(), context "Queue"): which policy is
in force and why the worker waits (the Queue dock's line under its summary), and the choices
of the Settings dialog. The CLI's English words are app/cli/work_texts.py."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from app.pipeline import work_policy as wp


def _tr(text: str) -> str:
    return QCoreApplication.translate("Queue", text)


def mode_names() -> list[tuple[str, str]]:
    """(mode, name) in the Settings dialog's order."""
    return [
        (wp.ALWAYS, _tr("Always")),
        (wp.IDLE, _tr("When I am away from the computer")),
        (wp.HOURS, _tr("Only in these hours")),
    ]


def policy_text(policy: wp.WorkPolicy) -> str:
    if policy.mode == wp.IDLE:
        text = _tr("when idle (no input for {minutes} min)").format(minutes=policy.idle_minutes)
    elif policy.mode == wp.HOURS:
        text = _tr("in hours {hours}").format(hours=policy.hours.replace("-", "–"))
    else:
        text = _tr("always")
    if policy.not_on_battery:
        text += _tr(", not on battery")
    return _tr("Runs: {policy}").format(policy=text)


def waiting_text(now: wp.Verdict) -> str:
    if now.work:
        return ""
    return {
        wp.AT_COMPUTER: _tr("waiting: you are at the computer"),
        wp.NO_IDLE_SOURCE: _tr("waiting: this computer cannot tell when it is idle"),
        wp.OUTSIDE_HOURS: _tr("waiting until {time}").format(time=now.until),
        wp.ON_BATTERY: _tr("waiting: the computer runs on battery"),
    }.get(now.reason, _tr("waiting"))


def state_line(policy: wp.WorkPolicy, now: wp.Verdict | None) -> str:
    """ "Runs: when idle (no input for 10 min) · waiting: you are at the computer"."""
    waiting = "" if now is None else waiting_text(now)
    return policy_text(policy) + (" · " + waiting if waiting else "")
