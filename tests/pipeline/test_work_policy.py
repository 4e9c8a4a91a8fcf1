"""The work policy's verdicts (hours across midnight, idle minutes, battery), its settings and
`--when` spelling, and the idle sources with the platform faked (no desktop needed)."""

from __future__ import annotations

import ctypes
import datetime as dt
import subprocess
from typing import Any

import pytest

from app.core import platform, platform_idle
from app.core.errors import InputError
from app.core.settings import Settings, WorkSettings, settings_from_dict
from app.pipeline import work_policy as wp
from app.pipeline.control import POLICY, USER, RunControl
from app.pipeline.queue.work_gate import Sources, WorkGate, read_status, write_status
from tests.fakes.fake_idle import FakeIdle


def _at(hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2026, 12, 5, hour, minute)


def test_hours_across_midnight() -> None:
    p = wp.policy_of("23:30-02:00")
    assert p.mode == wp.HOURS and p.hours == "23:30-02:00"
    inside = [wp.verdict(p, _at(h, m), None, None).work for h, m in [(23, 30), (0, 0), (1, 59)]]
    assert inside == [True, True, True]
    out = wp.verdict(p, _at(2, 0), None, None)
    assert out == wp.Verdict(False, wp.OUTSIDE_HOURS, "23:30")
    assert not wp.verdict(p, _at(23, 29), None, None).work
    day = wp.policy_of("hours", hours="09:00-17:00")
    assert (
        wp.verdict(day, _at(9), None, None).work and not wp.verdict(day, _at(17), None, None).work
    )


def test_idle_minutes_and_battery() -> None:
    p = wp.policy_of("idle", 10, not_on_battery=True)
    assert wp.verdict(p, _at(12), 599, False) == wp.Verdict(False, wp.AT_COMPUTER)
    assert wp.verdict(p, _at(12), 600, False).work
    assert wp.verdict(p, _at(12), 600, None).work  # no battery at all
    assert wp.verdict(p, _at(12), 600, True) == wp.Verdict(False, wp.ON_BATTERY)
    assert wp.verdict(p, _at(12), None, False) == wp.Verdict(False, wp.NO_IDLE_SOURCE)
    assert wp.verdict(wp.WorkPolicy(), _at(12), None, True).work  # always, battery allowed


@pytest.mark.parametrize("bad", ["sometimes", "25:00-01:00", "01:00-01:00", "1-7", "01:60-02:00"])
def test_a_bad_policy_names_the_value(bad: str) -> None:
    with pytest.raises(InputError) as err:
        wp.policy_of(bad)
    assert bad in str(err.value) and "HH:MM-HH:MM" in (err.value.fix or "")


def test_idle_minutes_out_of_range() -> None:
    with pytest.raises(InputError):
        wp.policy_of("idle", 0)


def test_settings_remember_the_policy_and_a_damaged_one_reads_always() -> None:
    settings, problems = settings_from_dict(
        {"version": 2, "work": {"mode": "idle", "idle_minutes": 3, "not_on_battery": True}}
    )
    assert problems == []
    assert wp.policy_from_settings(settings.work) == wp.WorkPolicy(wp.IDLE, 3, 60, 420, True)
    assert wp.to_settings(wp.policy_of("idle", 3, not_on_battery=True)) == settings.work
    assert Settings().work == WorkSettings()  # an older version-2 file: always
    assert wp.policy_from_settings(WorkSettings(mode="hours", hours="nonsense")).mode == wp.ALWAYS


def test_the_gate_says_why_it_waits_and_a_user_suspend_ends_the_wait() -> None:
    idle = FakeIdle(0.0)
    states: list[wp.Verdict] = []
    control = RunControl()

    def on_state(now: wp.Verdict) -> None:
        states.append(now)
        control.suspend()  # the user's, while the worker waits

    gate = WorkGate(wp.policy_of("idle", 1), Sources(idle=idle), poll_s=0.01, on_state=on_state)
    assert gate.wait(control) is False
    assert states == [wp.Verdict(False, wp.AT_COMPUTER)]


def test_a_policy_suspend_is_taken_back_a_users_is_not() -> None:
    control = RunControl(stop_deadline_s=60)
    control.suspend(by=POLICY, deadline_s=0.0)
    assert control.suspend_requested and control.suspended_by == {POLICY}
    assert control.stop_overdue()  # the policy's short deadline, not the user's minute
    assert control.withdraw_suspend(POLICY) and not control.suspend_requested
    control.suspend(by=POLICY)
    control.suspend(by=USER)
    assert not control.withdraw_suspend(POLICY) and control.suspended_by == {USER}


def test_worker_status_file_is_read_only_while_its_worker_lives(tmp_path) -> None:
    write_status(
        tmp_path, wp.policy_of("01:00-07:00"), wp.Verdict(False, wp.OUTSIDE_HOURS, "01:00")
    )
    status = read_status(tmp_path)
    assert status is not None and status.waiting.until == "01:00"
    assert status.policy["hours"] == "01:00-07:00"
    text = (tmp_path / "worker.json").read_text()
    (tmp_path / "worker.json").write_text(text.replace('"pid": ', '"pid": 9999999'))
    assert read_status(tmp_path) is None  # a dead worker says nothing


# -- the idle sources ---------------------------------------------------------------------------


class FakeUser32:
    def __init__(self, last_input_ms: int, ok: bool = True) -> None:
        self.last, self.ok = last_input_ms, ok

    def GetLastInputInfo(self, ref: Any) -> bool:
        info = ctypes.cast(ref, ctypes.POINTER(platform_idle._LastInputInfo)).contents
        assert info.cbSize == ctypes.sizeof(platform_idle._LastInputInfo)
        info.dwTime = self.last
        return self.ok


class FakeTicks:
    def __init__(self, now_ms: int) -> None:
        self.now = now_ms

    def GetTickCount(self) -> int:
        return self.now


def test_windows_idle_from_get_last_input_info(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "WINDOWS", True)
    monkeypatch.setattr(platform_idle, "_user32", lambda: FakeUser32(10_000))
    monkeypatch.setattr(platform_idle, "_tick_kernel32", lambda: FakeTicks(70_000))
    source = platform_idle.system_idle_source()
    assert isinstance(source, platform_idle.WindowsIdle)
    assert source.idle_seconds() == 60.0
    # GetTickCount wrapped after 49.7 days; the last input was before the wrap
    monkeypatch.setattr(platform_idle, "_user32", lambda: FakeUser32(0xFFFFFFFF - 999))
    monkeypatch.setattr(platform_idle, "_tick_kernel32", lambda: FakeTicks(1_000))
    assert source.idle_seconds() == 2.0
    monkeypatch.setattr(platform_idle, "_user32", lambda: FakeUser32(0, ok=False))
    assert source.idle_seconds() is None


def test_linux_parsers() -> None:
    assert platform_idle.parse_xprintidle("61234\n") == 61.234
    assert platform_idle.parse_xprintidle("error") is None
    assert platform_idle.parse_logind("IdleHint=no\nIdleSinceHint=0\n") == 0.0
    out = "IdleHint=yes\nIdleSinceHint=1000000000\n"
    assert platform_idle.parse_logind(out, now_us=1_300_000_000) == 300.0
    assert platform_idle.parse_logind("") is None  # no such session property: not offered


def test_no_idle_source_on_linux_without_a_desktop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "WINDOWS", False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("XDG_SESSION_ID", raising=False)
    assert platform_idle.system_idle_source() is None


def test_logind_answers_through_loginctl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "WINDOWS", False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("XDG_SESSION_ID", "c2")
    monkeypatch.setattr(platform_idle.shutil, "which", lambda name: f"/usr/bin/{name}")
    asked: list[list[str]] = []

    def run(argv: list[str], **_kw: object) -> subprocess.CompletedProcess:
        asked.append(argv)
        return subprocess.CompletedProcess(argv, 0, "IdleHint=no\nIdleSinceHint=0\n", "")

    monkeypatch.setattr(platform_idle.subprocess, "run", run)
    source = platform_idle.system_idle_source()
    assert source is not None and source.name == "logind"
    assert source.idle_seconds() == 0.0
    assert asked[0][:3] == ["/usr/bin/loginctl", "show-session", "c2"]
