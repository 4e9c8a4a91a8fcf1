"""The progress of an engine build for whoever waits: the stage (download, patch, configure,
compile), compile k/N from the build tool's own output, the time elapsed and an estimate.

Printed to stderr (the terminal that runs ./run.sh) and, while the build runs, kept in
<cache>/build/progress.json next to progress.lock (held by the building process), so a Stepwise
started meanwhile can say what is happening: `build.py --print-path` reports it (exit code 3).
Python standard library only, like build.py.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import IO, Any

STAGES = ("download", "patch", "configure", "compile")
PROGRESS_FILE = "progress.json"
LOCK_FILE = "progress.lock"
HISTORY_FILE = "last-build.json"  # how long the last full build took, for the first estimate
PRINT_EVERY_S = 15.0
MIN_DONE_FOR_RATE = 3  # compile steps before the rate is trusted for an estimate
EXIT_BUILDING = 3  # build.py --print-path: not built, but a build is running now

# "[ 45%] Building CXX object ..." (Makefiles) and "[12/340] Building CXX object ..." (Ninja).
MAKE_PERCENT = re.compile(r"^\[\s*(\d{1,3})%\]")
NINJA_COUNT = re.compile(r"^\[(\d+)/(\d+)\]")


def clock_text(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"


def parse_compile_line(line: str) -> tuple[int, int] | None:
    """(done, total) from one line of make or ninja output; percent lines give (pct, 100)."""
    m = NINJA_COUNT.match(line)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = MAKE_PERCENT.match(line)
    if m:
        return min(int(m.group(1)), 100), 100
    return None


def _try_lock(f: IO[bytes]) -> bool:
    """A non-blocking exclusive lock on an open file; False when another process holds it."""
    try:
        if os.name == "nt":
            import msvcrt

            f.seek(0)
            msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _unlock(f: IO[bytes]) -> None:
    try:
        if os.name == "nt":
            import msvcrt

            f.seek(0)
            msvcrt.locking(f.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
    except OSError:
        pass


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, path)


class BuildProgress:
    """One build's progress: `stage(name)` as each stage begins, `compile_line(line)` for
    every line the build tool prints, `finish(ok)` at the end."""

    def __init__(
        self, folder: Path, out: IO[str] | None = None, clock: Any = time.monotonic
    ) -> None:
        self.folder = folder
        self.out = out if out is not None else sys.stderr
        self.clock = clock
        self.started = clock()
        self.current = ""
        self.stage_started = self.started
        self.done = 0
        self.total = 0
        self._printed_at = -PRINT_EVERY_S
        self._lock: IO[bytes] | None = None
        self._reporting = False
        self.last_build_s = self._read_history()

    # --- the stages ---------------------------------------------------------------------------

    def stage(self, name: str) -> None:
        if not self._reporting:
            self._start_reporting()
        self.current = name
        self.stage_started = self.clock()
        self.done = self.total = 0
        number = STAGES.index(name) + 1 if name in STAGES else 0
        hint = ""
        if name == "configure" and self.last_build_s:
            hint = f" (the last build took {clock_text(self.last_build_s)})"
        elif name == "compile":
            hint = " (the longest part: several minutes on a few cores)"
        self._say(f"[{number}/{len(STAGES)}] {name}, {clock_text(self.elapsed())} elapsed{hint}")
        self._save()

    def compile_line(self, line: str) -> None:
        found = parse_compile_line(line)
        if found is None or self.current != "compile":
            return
        self.done, self.total = found
        now = self.clock()
        if now - self._printed_at >= PRINT_EVERY_S or self.done >= self.total:
            self._printed_at = now
            self._say(self.summary())
        self._save()

    def finish(self, ok: bool) -> None:
        if self._reporting:
            if ok:
                self._say(f"done in {clock_text(self.elapsed())}")
                try:
                    _write_json(self.folder / HISTORY_FILE, {"seconds": self.elapsed()})
                except OSError:
                    pass
            (self.folder / PROGRESS_FILE).unlink(missing_ok=True)
            if self._lock is not None:
                _unlock(self._lock)
                self._lock.close()
                self._lock = None
        self._reporting = False

    # --- what it says ------------------------------------------------------------------------

    def elapsed(self) -> float:
        return self.clock() - self.started

    def eta_s(self) -> float | None:
        """Seconds left of the compile, from its rate so far; before that from the last build."""
        if self.current == "compile" and self.total and self.done >= MIN_DONE_FOR_RATE:
            spent = self.clock() - self.stage_started
            return spent * (self.total - self.done) / self.done
        if self.last_build_s:
            return max(0.0, self.last_build_s - self.elapsed())
        return None

    def summary(self) -> str:
        """'compile 120/340, 4:10 elapsed, about 7:40 left' (percent for make's output)."""
        what = self.current or "starting"
        if self.current == "compile" and self.total:
            what += f" {self.done} %" if self.total == 100 else f" {self.done}/{self.total}"
        text = f"{what}, {clock_text(self.elapsed())} elapsed"
        eta = self.eta_s()
        if eta is not None:
            text += f", about {clock_text(eta)} left"
        return text

    def _say(self, text: str) -> None:
        print(f"build.py: {text}", file=self.out, flush=True)

    # --- the file another process reads ------------------------------------------------------

    def _start_reporting(self) -> None:
        self._reporting = True
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            lock = open(self.folder / LOCK_FILE, "a+b")  # noqa: SIM115 - held for the build
        except OSError:
            return
        if _try_lock(lock):
            self._lock = lock
        else:
            lock.close()  # another build reports already; this one only prints

    def _save(self) -> None:
        if self._lock is None:
            return
        data = {
            "pid": os.getpid(),
            "stage": self.current,
            "done": self.done,
            "total": self.total,
            "elapsed_s": round(self.elapsed(), 1),
            "eta_s": None if self.eta_s() is None else round(self.eta_s() or 0.0, 1),
            "text": self.summary(),
        }
        try:
            _write_json(self.folder / PROGRESS_FILE, data)
        except OSError:
            pass

    def _read_history(self) -> float | None:
        try:
            seconds = json.loads((self.folder / HISTORY_FILE).read_text(encoding="utf-8"))
            value = float(seconds["seconds"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return value if value > 0 else None


def running_build(folder: Path) -> dict[str, Any] | None:
    """The progress of a build that runs right now (its lock is held), else None."""
    path = folder / PROGRESS_FILE
    if not path.is_file():
        return None
    try:
        with open(folder / LOCK_FILE, "a+b") as lock:
            if _try_lock(lock):
                _unlock(lock)
                return None  # a file left by a build that was killed
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
