"""The import rules of DESIGN.md §2: import-linter contracts (pyproject.toml) plus the one rule
it cannot express (canvas and jobs use QtCore/QtGui only, never QtWidgets)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

from tests.test_code_quality import LINT, already_linted, run_check

ROOT = Path(__file__).resolve().parent.parent


@already_linted
def test_import_rules_hold() -> None:
    result = run_check("import contracts")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout, result.stdout


# One import that breaks each floor contract, in a copy of app/: the contract must say so.
BREACHES = {
    "pipeline floors: each imports only the floors under it": (
        "app/pipeline/job/breach.py",  # the parameter floor reaching up to the runner
        "import app.pipeline.runner\n",
    ),
    "pipeline surface: above the pipeline, only what app/pipeline/__init__.py names": (
        "app/ui/breach.py",  # the UI reaching past the face into a floor
        "from app.pipeline.execute import stages\n",
    ),
    "ui floors: each imports only the floors under it": (
        "app/ui/painter/breach.py",  # the painter reaching up into the workspace (issue 28)
        "import app.ui.workspace.controller\n",
    ),
}


def test_the_import_contracts_fail_when_one_forbidden_import_is_added(tmp_path: Path) -> None:
    """The contracts have teeth: each breach above breaks its contract, and only that one."""
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "app", copy / "app", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    for rel, line in BREACHES.values():
        (copy / rel).write_text(line, encoding="utf-8")
    tool, args = next((tool, args) for n, tool, args in LINT.CHECKS if n == "import contracts")
    result = subprocess.run(LINT.command(tool, args), cwd=copy, capture_output=True, text=True)
    assert result.returncode != 0, result.stdout
    broken = {line.removesuffix(" BROKEN") for line in result.stdout.splitlines()
              if line.endswith(" BROKEN")}  # fmt: skip
    assert broken == set(BREACHES), result.stdout[-4000:]


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_canvas_and_jobs_use_no_widgets() -> None:
    offenders = []
    for package in ("canvas", "jobs"):
        for path in (ROOT / "app" / package).rglob("*.py"):
            if any(m.startswith("PySide6.QtWidgets") for m in _imported_modules(path)):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_no_qt_in_headless_packages_at_runtime() -> None:
    code = (
        "import sys, pkgutil, importlib, app.cli, app.core, app.imaging, app.engine, "
        "app.pipeline\n"
        "for pkg in (app.core, app.imaging, app.engine, app.pipeline):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "print('PySide6' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def _type_checking_names() -> dict[str, str]:
    """The names app/pipeline/__init__.py's TYPE_CHECKING block imports (what mypy sees) →
    their modules."""
    source = (ROOT / "app" / "pipeline" / "__init__.py").read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                if isinstance(imp, ast.ImportFrom) and imp.module:
                    found.update((a.asname or a.name, imp.module) for a in imp.names)
    return found


def test_the_pipeline_face_hands_out_every_name_it_lists() -> None:
    """app/pipeline/__init__.py's table is what ui/, jobs/ and cli/ may import from the floors
    they cannot import; it equals the TYPE_CHECKING block (what mypy sees), and each name must
    resolve to its module's object."""
    import importlib

    import app.pipeline as face

    listed = face.handed_out()
    assert listed, "the face lists no names"
    assert listed == _type_checking_names()
    for name, module in listed.items():
        assert getattr(face, name) is getattr(importlib.import_module(module), name), name


# The one name of execute/ the face hands out: the failure a worker's exception is, worded as
# data. The memory plan, the fit guard and the preview decoder ask PipelineAPI (plan,
# preview_decoder) instead, so the fake stands in for them (issue 39, item 3).
FACE_FROM_EXECUTE = {"failure_for"}


def test_above_the_pipeline_execute_is_reached_only_through_the_api() -> None:
    import app.pipeline as face

    from_execute = {
        name for name, module in face.handed_out().items()
        if module.startswith("app.pipeline.execute")
    }  # fmt: skip
    assert from_execute == FACE_FROM_EXECUTE
    asked: set[str] = set()  # what ui/, jobs/ and cli/ import from the face
    for package in ("ui", "jobs", "cli"):
        for path in (ROOT / "app" / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            asked.update(
                alias.name for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module == "app.pipeline"
                for alias in node.names
            )  # fmt: skip
    unused = set(face.handed_out()) - asked
    assert unused == set(), f"face names nobody above the pipeline uses: {sorted(unused)}"


def test_the_pipeline_face_works_without_its_source(tmp_path: Path) -> None:
    """A frozen or embedded app may carry only .pyc files (issue 37, bug 2): the face must not
    read its own source at run time."""
    import py_compile

    copy = tmp_path / "app"
    shutil.copytree(ROOT / "app", copy, ignore=shutil.ignore_patterns("__pycache__"))
    init = copy / "pipeline" / "__init__.py"
    py_compile.compile(str(init), cfile=str(init.with_suffix(".pyc")), doraise=True)
    init.unlink()
    code = (
        "import app.pipeline as face\n"
        "assert face.__file__.endswith('.pyc'), face.__file__\n"
        "from app.pipeline import Pipeline, run_queue\n"
        "print(Pipeline.__name__, run_queue.__name__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["Pipeline", "run_queue"]
