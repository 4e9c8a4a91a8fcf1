"""How long the person at the computer has been away, and whether it runs on battery: the
platform part of the queue's work policy (app/pipeline/work_policy.py), split from
app/core/platform.py by job (it branches on `platform.WINDOWS` at call time the same way, so
tests fake the platform and the Win32 layer as they do there).

- Windows: `GetLastInputInfo` (user32) against `GetTickCount` (kernel32): milliseconds since
  the last keyboard or mouse input of this session.
- Linux with X: the X screensaver extension's idle time (`libXss`'s `XScreenSaverQueryInfo`
  through ctypes, else the `xprintidle` program when it is installed).
- Linux without X (Wayland, a console): logind's `IdleHint` / `IdleSinceHint` of this login
  session (`loginctl show-session`), where the desktop sets it.
- Anything else: no idle source, and "when idle" is not offered.

The battery is psutil's `sensors_battery()` (None: no battery, or it cannot be read).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from typing import Any, Protocol

import psutil

from app.core import platform

log = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 2.0  # a helper program that hangs is no idle source


class IdleSource(Protocol):
    """Seconds since the last keyboard or mouse input; None when it cannot be told now."""

    name: str

    def idle_seconds(self) -> float | None: ...


# -- Windows ------------------------------------------------------------------------------------


class _LastInputInfo(ctypes.Structure):
    _fields_ = [("cbSize", ctypes.c_uint), ("dwTime", ctypes.c_uint)]


def _user32() -> Any:  # pragma: no cover - Windows only; tests replace it
    return ctypes.WinDLL("user32", use_last_error=True)  # type: ignore[attr-defined]


def _tick_kernel32() -> Any:  # pragma: no cover - Windows only; tests replace it
    k32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    k32.GetTickCount.restype = ctypes.c_uint
    return k32


class WindowsIdle:
    name = "GetLastInputInfo"

    def idle_seconds(self) -> float | None:
        info = _LastInputInfo()
        info.cbSize = ctypes.sizeof(info)
        if not _user32().GetLastInputInfo(ctypes.byref(info)):
            return None
        now = int(_tick_kernel32().GetTickCount()) & 0xFFFFFFFF
        return ((now - info.dwTime) & 0xFFFFFFFF) / 1000.0  # both wrap after 49.7 days


# -- Linux --------------------------------------------------------------------------------------


class _XssInfo(ctypes.Structure):
    _fields_ = [
        ("window", ctypes.c_ulong),
        ("state", ctypes.c_int),
        ("kind", ctypes.c_int),
        ("til_or_since", ctypes.c_ulong),
        ("idle", ctypes.c_ulong),
        ("event_mask", ctypes.c_ulong),
    ]


class XssIdle:
    """The X screensaver extension's idle time through libXss (the display stays open)."""

    name = "XScreenSaver"

    def __init__(self, xlib: Any, xss: Any, display: int) -> None:
        self._xlib, self._xss, self._display = xlib, xss, display
        self._info = xss.XScreenSaverAllocInfo()

    @classmethod
    def open(cls) -> XssIdle | None:
        if not os.environ.get("DISPLAY"):
            return None
        x_name, xss_name = ctypes.util.find_library("X11"), ctypes.util.find_library("Xss")
        if not x_name or not xss_name:
            return None
        try:
            xlib, xss = ctypes.CDLL(x_name), ctypes.CDLL(xss_name)
            xlib.XOpenDisplay.restype = ctypes.c_void_p
            xlib.XOpenDisplay.argtypes = [ctypes.c_char_p]
            xlib.XDefaultRootWindow.restype = ctypes.c_ulong
            xlib.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
            xss.XScreenSaverAllocInfo.restype = ctypes.POINTER(_XssInfo)
            xss.XScreenSaverQueryExtension.argtypes = [ctypes.c_void_p] + [ctypes.c_void_p] * 2
            xss.XScreenSaverQueryInfo.argtypes = [
                ctypes.c_void_p,
                ctypes.c_ulong,
                ctypes.POINTER(_XssInfo),
            ]
            display = xlib.XOpenDisplay(None)
            if not display:
                return None
            a, b = ctypes.c_int(), ctypes.c_int()
            if not xss.XScreenSaverQueryExtension(display, ctypes.byref(a), ctypes.byref(b)):
                return None
            return cls(xlib, xss, display)
        except (OSError, AttributeError) as exc:
            log.info("no X screensaver idle time: %s", exc)
            return None

    def idle_seconds(self) -> float | None:
        root = self._xlib.XDefaultRootWindow(self._display)
        if not self._xss.XScreenSaverQueryInfo(self._display, root, self._info):
            return None
        return float(self._info.contents.idle) / 1000.0


class CommandIdle:
    """A program's answer: `xprintidle` (milliseconds) or logind's idle hint."""

    def __init__(self, name: str, argv: list[str], parse: Callable[[str], float | None]):
        self.name, self._argv, self._parse = name, argv, parse

    def idle_seconds(self) -> float | None:
        try:
            out = subprocess.run(
                self._argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=True
            ).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        return self._parse(out)


def parse_xprintidle(out: str) -> float | None:
    text = out.strip()
    return int(text) / 1000.0 if text.isdigit() else None


def parse_logind(out: str, now_us: int | None = None) -> float | None:
    """`loginctl show-session ID -p IdleHint -p IdleSinceHint`: 0 while in use, else the
    seconds since the desktop marked the session idle."""
    fields = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    hint = fields.get("IdleHint")
    if hint == "no":
        return 0.0
    since = fields.get("IdleSinceHint", "")
    if hint != "yes" or not since.isdigit() or int(since) == 0:
        return None
    now = time.time_ns() // 1000 if now_us is None else now_us
    return max(0.0, (now - int(since)) / 1e6)


def _logind() -> CommandIdle | None:
    loginctl, session = shutil.which("loginctl"), os.environ.get("XDG_SESSION_ID")
    if not loginctl or not session:
        return None
    argv = [loginctl, "show-session", session, "-p", "IdleHint", "-p", "IdleSinceHint"]
    source = CommandIdle("logind", argv, parse_logind)
    return source if source.idle_seconds() is not None else None


def system_idle_source() -> IdleSource | None:
    """This computer's idle source, or None when none answers (then "when idle" is not
    offered)."""
    if platform.WINDOWS:
        return WindowsIdle()
    if platform.MACOS:
        return None
    xss = XssIdle.open()
    if xss is not None:
        return xss
    xprintidle = shutil.which("xprintidle")
    if xprintidle and os.environ.get("DISPLAY"):
        source = CommandIdle("xprintidle", [xprintidle], parse_xprintidle)
        if source.idle_seconds() is not None:
            return source
    return _logind()


def on_battery() -> bool | None:
    """True on battery power, False on the mains, None with no battery (or none readable)."""
    try:
        battery = psutil.sensors_battery()
    except (OSError, NotImplementedError, AttributeError):
        return None
    if battery is None:
        return None
    return not battery.power_plugged
