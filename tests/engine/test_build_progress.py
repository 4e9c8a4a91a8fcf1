"""First start: native/build.py says where the build is (stage, compile k/N, elapsed, an
estimate), and a Stepwise started while a build runs learns it instead of failing."""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine import build_state, locate
from app.engine.locate import EngineBuilding, EngineNotFound, find_sd_stage

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "native"))
import build_progress  # noqa: E402
from build_progress import BuildProgress, parse_compile_line, running_build  # noqa: E402


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_make_and_ninja_lines_give_k_of_n() -> None:
    assert parse_compile_line("[ 45%] Building CXX object sd/CMakeFiles/x.dir/a.cpp.o") == (45, 100)
    assert parse_compile_line("[100%] Linking CXX executable ../bin/sd-stage") == (100, 100)
    assert parse_compile_line("[12/340] Building CXX object ggml/src/x.c.o") == (12, 340)
    assert parse_compile_line("-- Configuring done") is None
    assert parse_compile_line("  [ 45%] indented is not the tool's") is None


def test_stages_compile_progress_and_estimate_are_printed(tmp_path: Path) -> None:
    out, clock = io.StringIO(), Clock()
    progress = BuildProgress(tmp_path, out, clock)
    progress.stage("configure")
    clock.now += 30
    progress.stage("compile")
    clock.now += 60
    progress.compile_line("[10/40] Building CXX object a.o")
    assert progress.summary() == "compile 10/40, 1:30 elapsed, about 3:00 left"
    clock.now += 180
    progress.compile_line("[40/40] Linking CXX executable bin/sd-stage")
    progress.finish(ok=True)
    lines = out.getvalue().splitlines()
    assert lines[0] == "build.py: [3/4] configure, 0:00 elapsed"
    assert lines[1].startswith("build.py: [4/4] compile, 0:30 elapsed")
    assert "build.py: compile 10/40, 1:30 elapsed, about 3:00 left" in lines
    assert "build.py: compile 40/40, 4:30 elapsed, about 0:00 left" in lines
    assert lines[-1] == "build.py: done in 4:30"
    # The next build's first estimate is this build's time.
    later = BuildProgress(tmp_path, io.StringIO(), Clock())
    assert later.last_build_s == pytest.approx(270)
    assert later.summary() == "starting, 0:00 elapsed, about 4:30 left"


def test_a_running_build_is_seen_and_a_dead_one_is_not(tmp_path: Path) -> None:
    progress = BuildProgress(tmp_path, io.StringIO(), Clock())
    assert running_build(tmp_path) is None
    progress.stage("compile")
    progress.compile_line("[ 45%] Building CXX object a.o")
    seen = running_build(tmp_path)
    assert seen is not None and seen["stage"] == "compile" and seen["done"] == 45
    assert seen["text"].startswith("compile 45 %")
    progress.finish(ok=False)
    assert running_build(tmp_path) is None
    assert not (tmp_path / "last-build.json").exists()  # a failed build is no estimate
    # A progress file left by a killed build (its lock is free) is not a running build.
    (tmp_path / build_progress.PROGRESS_FILE).write_text('{"text": "compile 3/9"}')
    assert running_build(tmp_path) is None


def test_print_path_reports_a_running_build(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    progress = BuildProgress(cache / "build", io.StringIO(), Clock())
    progress.stage("compile")
    progress.compile_line("[7/20] Building CXX object a.o")
    env = dict(os.environ, STEPWISE_BUILD_CACHE=str(cache))
    result = subprocess.run(
        [sys.executable, str(ROOT / "native" / "build.py"), "--print-path"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    progress.finish(ok=False)
    assert result.returncode == build_progress.EXIT_BUILDING == locate.EXIT_BUILDING
    assert "build.py: building now: compile 7/20, 0:00 elapsed" in result.stderr
    after = subprocess.run(
        [sys.executable, str(ROOT / "native" / "build.py"), "--print-path"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert after.returncode == 1 and "not built yet" in after.stderr


def _script(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "build.py"
    script.write_text(body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_the_app_learns_that_the_engine_is_being_built(tmp_path: Path, monkeypatch) -> None:
    script = _script(
        tmp_path,
        "import sys\n"
        "print('build.py: building now: compile 120/340, 4:10 elapsed, about 7:40 left',"
        " file=sys.stderr)\n"
        "sys.exit(3)\n",
    )
    monkeypatch.setattr(locate, "build_script", lambda: script)
    with pytest.raises(EngineBuilding) as info:
        find_sd_stage(environ={})
    assert isinstance(info.value, EngineNotFound)  # the ENGINE_MISSING kind: no engine yet
    # No English progress line in the message: the status bar renders the numbers (issue 41).
    assert info.value.message == (
        "The engine sd-stage is being built right now; generating works when it is done."
    )
    state = build_state.engine_build_state(note=tmp_path / "no-note.json")
    assert state.engine_ready is False and state.log is None
    assert state.running == build_state.BuildRunning("", 0, 0, 0.0, None)  # numbers unread


def test_a_build_beside_a_finished_engine_is_said_with_the_engine(
    tmp_path: Path, monkeypatch
) -> None:
    """The faster Vulkan engine built in the background while the CPU one works (issue 30
    item 12): --print-path prints the CPU engine and says the build on stderr."""
    engine = tmp_path / "sd-stage"
    script = _script(
        tmp_path,
        "import sys\n"
        "print('build.py: building now: compile 7 %, 0:30 elapsed', file=sys.stderr)\n"
        f"print({str(engine)!r})\n",
    )
    monkeypatch.setattr(locate, "build_script", lambda: script)
    state = build_state.engine_build_state(note=tmp_path / "no-note.json")
    assert state.running is not None and state.engine_ready is True


def test_no_build_running_when_built_or_not_started(tmp_path: Path, monkeypatch) -> None:
    note = tmp_path / "no-note.json"
    script = _script(tmp_path, "import sys; sys.exit(1)\n")
    monkeypatch.setattr(locate, "build_script", lambda: script)
    assert build_state.engine_build_state(note=note) == build_state.EngineBuildState(
        None, False, None
    )
    built = _script(tmp_path, "print('/opt/sd-stage')\n")
    monkeypatch.setattr(locate, "build_script", lambda: built)
    assert build_state.engine_build_state(note=note).running is None


def test_the_builds_numbers_are_read_and_aged_to_now(tmp_path: Path, monkeypatch) -> None:
    """Issue 41 item 10: the status bar showed "about 1:30 left" for ten minutes, the line the
    build wrote before one long compile. The numbers are read as data and aged to the moment
    they are read: elapsed goes on, the estimate counts down and then says it is past."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("STEPWISE_BUILD_CACHE", str(cache))
    clock = Clock()
    progress = BuildProgress(cache / "build", io.StringIO(), clock)
    progress.stage("compile")
    clock.now += 60
    progress.compile_line("[10/40] Building CXX object a.o")  # 60 s for 10: 180 s left
    try:
        written = (cache / "build" / build_progress.PROGRESS_FILE).stat().st_mtime
        now = build_state.read_progress(now=written)
        later = build_state.read_progress(now=written + 600)
        state = build_state.engine_build_state(note=tmp_path / "no-note.json")
    finally:
        progress.finish(ok=False)
    assert now == build_state.BuildRunning("compile", 10, 40, 60.0, 180.0)
    assert later == build_state.BuildRunning("compile", 10, 40, 660.0, -420.0)
    # The real native/build.py --print-path over that cache: a build runs, no engine yet.
    assert state.running is not None and state.running.stage == "compile"
    assert (state.running.done, state.running.total) == (10, 40) and not state.engine_ready
    assert build_state.read_progress() is None  # the build has ended


def test_numbers_missing_from_the_file_are_no_numbers() -> None:
    assert build_state.running_from({"stage": "link", "done": "x"}, 5.0, ("compile",)) == (
        build_state.BuildRunning("", 0, 0, 5.0, None)
    )


def test_the_build_setup_env_started_is_seen_before_its_first_stage(
    tmp_path: Path, monkeypatch
) -> None:
    """scripts/setup_env.py notes the build it starts (pid, log): the window says "starting"
    before build.py reports a stage, and names the log once that build is gone."""
    monkeypatch.setattr(locate, "build_script", lambda: _script(tmp_path, "raise SystemExit(1)\n"))
    release = tmp_path / "release"
    fake = tmp_path / "fake" / "build.py"
    fake.parent.mkdir()
    fake.write_text(
        "import pathlib, sys, time\n"
        "deadline = time.monotonic() + 60\n"
        f"while not pathlib.Path({str(release)!r}).exists() and time.monotonic() < deadline:\n"
        "    time.sleep(0.05)\n"
    )
    child = subprocess.Popen([sys.executable, str(fake)])
    note, log = tmp_path / "engine-build.json", tmp_path / "engine-build.log"
    note.write_text(json.dumps({"pid": child.pid, "log": str(log)}))
    try:
        state = build_state.engine_build_state(note=note)
    finally:
        release.write_text("go")
        child.wait(timeout=60)
    assert state.running is not None and state.running.stage == "" and state.log == log
    assert build_state.engine_build_state(note=note) == build_state.EngineBuildState(
        None, False, log, built=False
    )


def test_a_faster_build_that_failed_is_told_from_the_engine_there(
    tmp_path: Path, monkeypatch
) -> None:
    """The CPU engine works and the noted Vulkan build has ended: is its engine there?"""
    script = _script(
        tmp_path,
        "import sys\n"
        "if '--vulkan' in sys.argv: sys.exit(1)\n"
        "print('/cache/build/cpu-0123/bin/sd-stage')\n",
    )
    monkeypatch.setattr(locate, "build_script", lambda: script)
    note, log = tmp_path / "engine-build.json", tmp_path / "engine-build.log"
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(gone.stdout)
    note.write_text(json.dumps({"pid": pid, "log": str(log), "options": ["--vulkan"]}))
    assert build_state.engine_build_state(note=note) == build_state.EngineBuildState(
        None, True, log, built=False
    )
    note.write_text(json.dumps({"pid": pid, "log": str(log), "options": []}))
    assert build_state.engine_build_state(note=note).built is True


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for sd-stage")
def test_engine_version_is_the_binarys_one_line(tmp_path: Path) -> None:
    exe = tmp_path / "sd-stage"
    exe.write_text(
        "#!/bin/sh\necho 'sd-stage 0.1.0 (stable-diffusion.cpp master-596-90e87bc, "
        "patches 897fd0f57862)'\n"
    )
    exe.chmod(0o755)
    assert locate.engine_version(exe) == (
        "sd-stage 0.1.0 (stable-diffusion.cpp master-596-90e87bc, patches 897fd0f57862)"
    )
    assert locate.engine_version(tmp_path / "missing") == ""


@pytest.mark.skipif(
    not all(shutil.which(tool) for tool in ("cmake", "make", "cc")), reason="needs CMake and cc"
)
@pytest.mark.slow  # a real CMake build, compiler and all
@pytest.mark.parametrize("generator", ["Unix Makefiles", "Ninja"])
def test_a_real_cmake_build_reports_compile_progress(
    tmp_path: Path, generator: str, monkeypatch
) -> None:
    """build.py's own run_cmake over a real (small) CMake project: the build tool's lines
    become compile k/N in the progress."""
    if generator == "Ninja" and shutil.which("ninja") is None:
        pytest.skip("no ninja")
    import importlib.util

    # By file, under its own name: "build" may be another package in sys.modules.
    spec = importlib.util.spec_from_file_location("stepwise_build", ROOT / "native" / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    src = tmp_path / "src"
    src.mkdir()
    names = [f"part{i}" for i in range(6)]
    for name in names:
        (src / f"{name}.c").write_text(f"int {name}(void) {{ return 1; }}\n")
    (src / "main.c").write_text("int main(void) { return 0; }\n")
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(tiny C)\n"
        f"add_executable(tiny main.c {' '.join(n + '.c' for n in names)})\n"
    )
    out = io.StringIO()
    progress = BuildProgress(tmp_path / "cache", out, Clock())
    monkeypatch.setattr(build, "PROGRESS", progress)
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # the tool's own lines go there
    progress.stage("configure")
    build.run_cmake(["cmake", "-S", str(src), "-B", str(tmp_path / "b"), "-G", generator], "cfg")
    progress.stage("compile")
    build.run_cmake(["cmake", "--build", str(tmp_path / "b"), "-j", "1"], "build")
    progress.finish(ok=True)
    assert progress.done == progress.total and progress.total in (100, 8)
    lines = out.getvalue().splitlines()
    unit = "100 %" if generator == "Unix Makefiles" else "8/8"
    assert any(line.startswith(f"build.py: compile {unit}, ") for line in lines), lines


def test_print_path_says_a_build_beside_a_finished_one(
    tmp_path: Path, sd_stage_vulkan: Path
) -> None:
    """The real native/build.py: a finished engine is printed on stdout, and a build running
    beside it (the faster one, in the background) is said on stderr (issue 30 item 12)."""
    cache = tmp_path / "cache"
    (cache / "build").mkdir(parents=True)
    finished = sd_stage_vulkan.resolve().parents[1]  # <cache>/build/<variant>-<key>/bin/…
    (cache / "build" / finished.name).symlink_to(finished, target_is_directory=True)
    env = dict(os.environ, STEPWISE_BUILD_CACHE=str(cache))
    argv = [sys.executable, str(ROOT / "native" / "build.py"), "--print-path", "--test-hooks"]
    alone = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert alone.returncode == 0 and "building now" not in alone.stderr
    found = Path(alone.stdout.strip().splitlines()[-1])
    assert found == sd_stage_vulkan.resolve()  # through the link, as build.py resolves it
    progress = BuildProgress(cache / "build", io.StringIO(), Clock())
    progress.stage("compile")
    progress.compile_line("[3/20] Building CXX object a.o")
    beside = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    progress.finish(ok=False)
    assert beside.returncode == 0 and beside.stdout == alone.stdout
    assert "build.py: building now: compile 3/20" in beside.stderr


MSVC_MISSING = [
    # CMake's Visual Studio-less fallback: the NMake generator with no nmake on PATH
    "CMake Error at CMakeLists.txt:2 (project):\n  Running\n\n   'nmake' '-?'\n\n"
    "  failed with:\n\n   The system cannot find the file specified\n",
    "CMake Error: CMAKE_CXX_COMPILER not set, after EnableLanguage\n"
    "CMake Error: CMAKE_C_COMPILER not set, after EnableLanguage\n",
    "CMake Error at CMakeLists.txt:2 (project):\n  No CMAKE_CXX_COMPILER could be found.\n",
]


@pytest.mark.parametrize("output", MSVC_MISSING)
def test_a_missing_msvc_gives_the_hint_that_names_the_fix(
    output: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Windows without Visual Studio's C++ tools (issue 37, bug 6): CMake's words for it map
    to the hint that names the fix, not to "configure failed: CMake Error …"."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("stepwise_build", ROOT / "native" / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # the tool's own lines go there
    fake_cmake = [sys.executable, "-c", f"import sys; print({output!r}); sys.exit(1)"]
    with pytest.raises(build.BuildError) as failed:
        build.run_cmake(fake_cmake, "configure")
    message = str(failed.value)
    assert message.startswith("no C/C++ compiler found"), message
    assert "Visual Studio Build Tools" in message and "setup .exe" in message
