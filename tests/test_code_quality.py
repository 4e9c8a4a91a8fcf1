"""House keeping that CI enforces through the README's test command: ruff (lint and format),
the type check of app/ (mypy, settings in pyproject.toml), the size of app/ modules and of
native sources, and no test that asserts a duration (timings belong in bench/, issue 20)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.script_module import load_script

ROOT = Path(__file__).resolve().parent.parent
# A generous cap: the size gate is ruff's C901 (a function's branches, pyproject.toml), so a
# module is split when it has two jobs, not when it reaches a number; this catches the extreme.
MAX_MODULE_LINES = 600
LONGER_MODULES: dict[str, str] = {}
LONGER_LIMIT = 650  # even an excepted module stays readable


def _load_lint() -> ModuleType:
    """scripts/lint.py owns the fast checks' commands (./test.sh runs them before the build)."""
    return load_script("lint")


LINT = _load_lint()
# ./test.sh ran these on this tree a moment ago; running them again costs ~a minute.
already_linted = pytest.mark.skipif(
    os.environ.get(LINT.PASSED_ENV) == "1", reason="./test.sh ran scripts/lint.py before the suite"
)


def run_check(name: str) -> subprocess.CompletedProcess[str]:
    tool, args = next((tool, args) for n, tool, args in LINT.CHECKS if n == name)
    return subprocess.run(LINT.command(tool, args), cwd=ROOT, capture_output=True, text=True)


@already_linted
@pytest.mark.parametrize("name", [c[0] for c in LINT.CHECKS if c[1] != "lint-imports"])
def test_fast_check_passes(name: str) -> None:
    """ruff check, ruff format --check, mypy (tests/test_architecture.py: the import rules)."""
    result = run_check(name)
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]


def test_vulture_finds_no_dead_code_in_app() -> None:
    """Dead definitions in app/ (vulture, 60 %; what only Qt, a lookup by name or Python calls
    is named in tests/vulture_whitelist.py). tests/, bench/ and scripts/ count as users."""
    pytest.importorskip("vulture")
    result = subprocess.run(
        [sys.executable, "-m", "vulture", "app", "tests", "bench", "scripts",
         "--min-confidence", "60"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )  # fmt: skip
    found = [line for line in result.stdout.splitlines() if line.startswith("app/")]
    assert found == [], "\n".join(found)


def import_circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of a graph (module -> the modules it imports): each set of two or
    more modules that reach one another (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, rest = work[-1]
            nxt = next(rest, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                elif nxt in stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                circle = []
                while True:
                    member = stack.pop()
                    circle.append(member)
                    if member == node:
                        break
                if len(circle) > 1:
                    circles.append(sorted(circle))
    return circles


def test_the_circle_check_finds_what_it_should() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}, "f": {"g"}}
    edges["g"] = {"f"}
    assert sorted(import_circles(edges)) == [["a", "b", "c"], ["f", "g"]]
    assert import_circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_across_files_in_app() -> None:
    """Issue 28: no two modules of app/ import each other, even only for type checking (a
    feature talks to the window through ui/window_host.py, never by importing it)."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("app", exclude_type_checking_imports=False, cache_dir=None)
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert import_circles(edges) == []


def test_no_app_module_is_too_long() -> None:
    long = {}
    for path in (ROOT / "app").rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        limit = LONGER_LIMIT if rel in LONGER_MODULES else MAX_MODULE_LINES
        if lines > limit:
            long[rel] = lines
    assert long == {}


MAX_NATIVE_LINES = 500  # native/README.md, "Layout": sd-stage's own C++ (not the patch series)


def test_no_native_source_is_too_long() -> None:
    long = {}
    for path in (ROOT / "native" / "src").rglob("*"):
        if path.suffix in {".cpp", ".hpp", ".h", ".inl"}:
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_NATIVE_LINES:
                long[path.relative_to(ROOT).as_posix()] = lines
    assert long == {}


# A name that holds a duration: `seconds`, `elapsed`, `took`, `wall`, `per_step`, `latency`,
# `*_seconds`, `*_s` / `*_ms` (the suite's unit suffixes).
_DURATION_NAME = re.compile(r"(^|_)(seconds|elapsed|duration|took|wall|per_step|latency)$|_(s|ms)$")
_CLOCKS = {"monotonic", "perf_counter", "time", "monotonic_ns", "perf_counter_ns", "time_ns"}


def _reads_clock(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _CLOCKS:
                return True
    return False


def _is_duration(node: ast.expr) -> bool:
    """A duration-like operand: a duration name, or a difference of clock readings. A bare
    clock reading (`time.monotonic() < deadline`) is a wait's ceiling, not a duration."""
    if isinstance(node, ast.Name):
        return bool(_DURATION_NAME.search(node.id))
    if isinstance(node, ast.Attribute):
        return bool(_DURATION_NAME.search(node.attr))
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and _reads_clock(node)


def duration_asserts(source: str) -> list[int]:
    """Lines of `assert` statements that bound a duration from above (a duration name or a
    clock difference on the small side of < / <=, or the large side of > / >=): they fail on
    a busy machine."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Assert):
            continue
        for compare in ast.walk(node.test):
            if not isinstance(compare, ast.Compare):
                continue
            operands = [compare.left, *compare.comparators]
            for op, left, right in zip(compare.ops, operands, operands[1:], strict=False):
                upper = isinstance(op, ast.Lt | ast.LtE) and _is_duration(left)
                lower = isinstance(op, ast.Gt | ast.GtE) and _is_duration(right)
                if upper or lower:
                    lines.append(node.lineno)
    return sorted(set(lines))


def test_the_duration_check_finds_what_it_should() -> None:
    # Written with a stand-in word so that this file holds no such assert itself.
    sample = (
        "check seconds < 5\n"
        "check time.monotonic() - started < LIMIT\n"
        "check 1 <= run.wall <= 9\n"
        "check 10 > elapsed\n"
        "check per_step < 1.0, 'slow'\n"
        "check latency < STOP_DEADLINE_S\n"
        "check seconds >= DEADLINE_S\n"  # a lower bound holds on any machine
        "check abs(a - b) < 0.05\n"
        "check width < 1024\n"
        "check time.monotonic() < deadline, 'timed out'\n"  # a wait's ceiling
    )
    found = duration_asserts(sample.replace("check ", "assert "))
    assert found == [1, 2, 3, 4, 5, 6]


def test_no_test_asserts_a_duration() -> None:
    """Timings are measured by bench/ scripts as ratios; a test asserts behaviour."""
    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for line in duration_asserts(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(ROOT)}:{line}")
    assert offenders == [], offenders


def test_every_app_thread_is_an_app_thread() -> None:
    """A QThread with a Qt parent dies with it, running or not, and Qt then aborts the process:
    every thread of the app derives from jobs/workers.AppThread (no parent, kept alive while it
    runs), never from QThread itself."""
    direct = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.name != "AppThread":
                bases = [ast.unparse(b) for b in node.bases]
                if any(b.split(".")[-1] == "QThread" for b in bases):
                    direct.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert direct == [], direct


# A test that stops a run when a step's event arrives races the engine: by the time the handler
# runs, the tiny steps may all be done (issue 27). It holds the engine at the step instead
# (tests/engine/pause_hook.py) and acts on the Paused event, or holds a child (SLOW_LOAD).
_STOP_CALLS = {"suspend", "cancel", "pause", "kill", "terminate", "send_signal"}
_STEP_EVENTS = {"Progress", "StepProgressed", "CheckpointSaved", "step_progress"}
# A test function that names one of these holds the engine (or the child) where it stops it.
_HOLDS = {
    "PAUSE_AT_STEP_ENV",
    "SD_STAGE_TEST_PAUSE_AT_STEP",
    "SD_STAGE_TEST_SLOW_LOAD",
    "engines_pause_at",
    "hold_session_at_step",
    "suspend_at",
}


def _calls_stop(node: ast.AST) -> bool:
    return any(
        isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Attribute)
        and sub.func.attr in _STOP_CALLS
        for sub in ast.walk(node)
    )


def _names_a_step_event(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        name = sub.id if isinstance(sub, ast.Name) else getattr(sub, "attr", None)
        if name in _STEP_EVENTS:
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            if re.search(r"checkpoint \d|step \d|decoding", sub.value):
                return True
    return False


def _waits_for_a_step(node: ast.stmt) -> bool:
    return isinstance(node, ast.With) and any(
        isinstance(item.context_expr, ast.Call)
        and getattr(item.context_expr.func, "attr", "") == "waitSignal"
        and _names_a_step_event(item.context_expr)
        for item in node.items
    )


def _says_a_child_exists(test: ast.expr) -> bool:
    negated = {
        id(n.operand)
        for n in ast.walk(test)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not)
    }
    return any(
        isinstance(n, ast.Call)
        and getattr(n.func, "attr", getattr(n.func, "id", "")) == "pid_exists"
        and id(n) not in negated
        for n in ast.walk(test)
    )


def _is_child_pid_set(node: ast.AST) -> bool:
    """`….child_pid is not None`."""
    return (
        isinstance(node, ast.Compare)
        and getattr(node.left, "attr", "") == "child_pid"
        and isinstance(node.ops[0], ast.IsNot)
    )


def _waits_for_a_child(node: ast.Call | ast.While) -> bool:
    """`waitUntil(lambda: ….child_pid is not None)` or `while ….child_pid is None:`."""
    if isinstance(node, ast.While):
        test = node.test
        return (
            isinstance(test, ast.Compare)
            and getattr(test.left, "attr", "") == "child_pid"
            and isinstance(test.ops[0], ast.Is)
        )
    return getattr(node.func, "attr", "") == "waitUntil" and any(
        _is_child_pid_set(sub) for arg in node.args for sub in ast.walk(arg)
    )


def _holds(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        name = sub.id if isinstance(sub, ast.Name) else getattr(sub, "attr", None)
        if name in _HOLDS or (isinstance(sub, ast.Constant) and sub.value in _HOLDS):
            return True
    return False


def race_shaped(source: str) -> list[int]:
    """Lines that stop a run or a child on a step's event: `if <step event>: <stop>`, a stop
    connected to `step_progress`, a stop right after `waitSignal(<step event>)`, an assert that
    a child still exists (`pid_exists`); unless the
    enclosing top-level function holds the engine or child there (_HOLDS)."""
    tree = ast.parse(source)
    held = [
        range(f.lineno, (f.end_lineno or f.lineno) + 1)
        for f in tree.body
        if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and _holds(f)
    ]
    return [line for line in _stops_on_a_step(tree) if not any(line in r for r in held)]


def _stops_on_a_step(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and _says_a_child_exists(node.test):
            lines.append(node.lineno)  # "the child is still there": a tiny one may be done
        if isinstance(node, ast.Call | ast.While) and _waits_for_a_child(node):
            lines.append(node.lineno)  # a tiny child may be gone before it is seen
        if isinstance(node, ast.If) and _names_a_step_event(node.test):
            if any(_calls_stop(stmt) for stmt in node.body):
                lines.append(node.lineno)
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", "") == "connect"
            and isinstance(node.func, ast.Attribute)
            and getattr(node.func.value, "attr", "") == "step_progress"
            and any(_calls_stop(arg) for arg in node.args)
        ):
            lines.append(node.lineno)
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for first, second in zip(body, body[1:], strict=False):
                if _waits_for_a_step(first) and _calls_stop(second):
                    lines.append(second.lineno)
    return sorted(set(lines))


def test_the_race_check_finds_what_it_should() -> None:
    sample = (
        "def kill(proc, event):\n"  # 1
        "    if isinstance(event, Progress) and event.step == kill_at:\n"  # 2: found
        "        proc.kill()\n"
        "runner.step_progress.connect(lambda s, *_: model.suspend() if s == 2 else None)\n"  # 4
        "for line in proc.stdout:\n"
        "    if 'checkpoint 1' in line:\n"  # 6: found
        "        proc.send_signal(signal.SIGINT)\n"
        "with qtbot.waitSignal(runner.step_progress, timeout=10_000):\n"
        "    runner.start()\n"
        "runner.cancel()\n"  # 10: found
        "if isinstance(event, ev.Paused):\n"  # held by the hook: fine
        "    control.suspend()\n"
        "if isinstance(event, ev.CheckpointSaved):\n"  # no stop: fine
        "    seen.append(event)\n"
        "runner.paused.connect(lambda _step: model.suspend())\n"  # fine
        "assert not psutil.pid_exists(pid)\n"  # gone: fine
        "assert pid is not None and psutil.pid_exists(pid)\n"  # 17: found
        "def test_held():\n"  # 18
        "    env = {PAUSE_AT_STEP_ENV: '2'}\n"  # the engine holds after step 2: fine
        "    if isinstance(event, Progress):\n"
        "        proc.kill()\n"
        "    qtbot.waitUntil(lambda: d.child_pid is not None)\n"  # held: fine
        "def test_unheld():\n"  # 23
        "    qtbot.waitUntil(lambda: d.decoder.child_pid is not None, timeout=9)\n"  # 24: found
        "    while d.child_pid is None:\n"  # 25: found
        "        time.sleep(0.01)\n"
    )
    assert race_shaped(sample) == [2, 4, 6, 10, 17, 24, 25]


def test_no_test_races_the_engine() -> None:
    """A test stops a run at a step with the engine's hold-at-step hook, never a command sent
    when a step's event arrives (tests/engine/pause_hook.py says how)."""
    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name == "test_code_quality.py":
            continue
        for line in race_shaped(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(ROOT)}:{line}")
    assert offenders == [], offenders


def test_the_package_search_walks_only_packages() -> None:
    """`pip install -e .` once spun for ever: setuptools' namespace search walked the checkout
    following links, into the wine test's prefix whose z: links to /. The search is the
    classic one (folders with an __init__.py), so every folder of app/ with code has one."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["setuptools"]["packages"]["find"].get("namespaces") is False
    folders = {p.parent for p in (ROOT / "app").rglob("*.py")}
    assert [f for f in folders if not (f / "__init__.py").is_file()] == []
