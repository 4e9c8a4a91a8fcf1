"""Every message a StepwiseError carries is a constant template (app/core/errors.py: never an
f-string) with a finished 简体中文 translation in Qt context "errors" (the errors_*.ts files),
with the same {placeholders}; and the UI really shows such a message in Chinese.

An AST scan of app/ finds every error class (everything derived from StepwiseError), every
call that constructs one (and `super().__init__(...)` inside one), and its class-level
default_message / default_fix. Files other parts still convert are KNOWN_GAPS: the test fails
when a listed file is clean (take it off the list) or an unlisted one is not.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import ERROR_CONTEXT
from app.ui.words.i18n import TRANSLATIONS_DIR, read_ts

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
PLACEHOLDER = re.compile(r"\{[^{}]*\}")

# Files whose raise sites other parts convert (relative to the repository root) -> owner.
# The lead decides when the list must be empty.
KNOWN_GAPS: dict[str, str] = {}


@dataclass(frozen=True)
class Site:
    file: str  # relative to ROOT
    line: int
    what: str  # "message" | "fix" | "default_message" | "default_fix"
    text: str | None  # the template, None for a problem
    problem: str = ""  # "f-string", "formatted", …


def _sources() -> list[Path]:
    return sorted(APP.rglob("*.py"))


def error_classes(files: list[Path]) -> set[str]:
    """Names of every class derived (by name, across app/) from StepwiseError."""
    bases: dict[str, set[str]] = {}
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names = {getattr(b, "id", None) or getattr(b, "attr", "") for b in node.bases}
                bases.setdefault(node.name, set()).update(names)
    known = {"StepwiseError"}
    grew = True
    while grew:
        grew = False
        for name, parents in bases.items():
            if name not in known and parents & known:
                known.add(name)
                grew = True
    return known


def _judge(node: ast.expr | None, file: str, what: str) -> list[Site]:
    if node is None:
        return []
    line = node.lineno
    if isinstance(node, ast.IfExp):  # fix="a" if x else "b": both are templates
        return _judge(node.body, file, what) + _judge(node.orelse, file, what)
    if isinstance(node, ast.Constant):
        return [Site(file, line, what, node.value)] if isinstance(node.value, str) else []
    if isinstance(node, ast.JoinedStr):
        return [Site(file, line, what, None, "f-string")]
    if isinstance(node, ast.BinOp) and any(
        isinstance(n, ast.Constant | ast.JoinedStr) for n in ast.walk(node)
    ):
        return [Site(file, line, what, None, "built with + or %")]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
    ):
        return [Site(file, line, what, None, "str.format")]
    return []  # a variable passed on (a template from elsewhere, or None)


def _is_super_init(call: ast.Call) -> bool:
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "__init__"
        and isinstance(func.value, ast.Call)
        and getattr(func.value.func, "id", "") == "super"
    )


@functools.cache
def scan() -> tuple[Site, ...]:
    files = _sources()
    classes = error_classes(files)
    sites: list[Site] = []
    for path in files:
        file = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls: list[ast.Call] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name in classes:
                for item in node.body:
                    if isinstance(item, ast.Assign | ast.AnnAssign):
                        targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                        for target in targets:
                            name = getattr(target, "id", "")
                            if name in ("default_message", "default_fix"):
                                sites += _judge(item.value, file, name)
                calls += [
                    c for c in ast.walk(node) if isinstance(c, ast.Call) and _is_super_init(c)
                ]
            if isinstance(node, ast.Call):
                func = node.func
                name = getattr(func, "id", None) or getattr(func, "attr", "")
                if name in classes:
                    calls.append(node)
        for call in calls:
            keywords = {k.arg: k.value for k in call.keywords}
            message = call.args[0] if call.args else keywords.get("message")
            for what, node in (("message", message), ("fix", keywords.get("fix"))):
                sites += _judge(node, file, what)
    return tuple(sites)


def _zh_errors() -> dict[str, str]:
    table: dict[str, str] = {}
    for ts in sorted((TRANSLATIONS_DIR / "zh_CN").glob("errors_*.ts")):
        for (context, source), text in read_ts(ts).items():
            if context == ERROR_CONTEXT:
                table[source] = text
    return table


def test_the_scan_finds_the_templates_and_the_f_strings() -> None:
    sites = scan()
    texts = {s.text for s in sites if s.text}
    assert len(texts) > 40
    # Known ones, from core, the preflight and the engine locator.
    assert "The disk is full while writing {path}." in texts
    assert (
        "The device {device} chosen for {name} is not one the engine finds now "
        "(it finds: {listed})." in texts
    )
    assert (
        "The engine sd-stage is being built right now; generating works when it is done." in texts
    )
    assert "The engine sd-stage was not found." in texts  # a class default_message


def test_no_error_message_is_an_f_string_outside_the_known_gaps() -> None:
    bad = sorted({s.file for s in scan() if s.problem})
    unexpected = [f for f in bad if f not in KNOWN_GAPS]
    assert unexpected == [], [
        (s.file, s.line, s.problem) for s in scan() if s.problem and s.file in unexpected
    ]


def test_every_template_has_a_chinese_translation() -> None:
    table = _zh_errors()
    missing = sorted(
        {(s.file, s.text) for s in scan() if s.text and s.text not in table}
        - {(s.file, s.text) for s in scan() if s.file in KNOWN_GAPS}
    )
    assert missing == []
    for site in scan():
        if site.text and site.text in table:
            got = sorted(PLACEHOLDER.findall(table[site.text]))
            assert sorted(PLACEHOLDER.findall(site.text)) == got, site


def test_known_gaps_are_still_gaps() -> None:
    """A file on the list that is clean now comes off it (the list only shrinks)."""
    table = _zh_errors()
    still = {s.file for s in scan() if s.problem or (s.text is not None and s.text not in table)}
    fixed = sorted(f for f in KNOWN_GAPS if f not in still)
    assert fixed == [], "take these off KNOWN_GAPS: " + ", ".join(fixed)


def test_an_error_shows_in_chinese(qapp) -> None:
    from PySide6.QtCore import QCoreApplication

    from app.pipeline.job import preflight
    from app.pipeline.job.spec import JobSpec, ModelFiles
    from app.ui.kit.messages import describe_error
    from app.ui.words.i18n import TsTranslator

    spec = JobSpec(models=ModelFiles("d", "l", "v"), prompt="p")
    try:
        preflight.check_devices(spec, ["cpu"] if spec.devices.llm != "cpu" else ["vulkan0"])
    except preflight.DeviceMissingError as exc:
        error = exc
    else:
        raise AssertionError("the device check passed")
    translator = TsTranslator("zh_CN")
    QCoreApplication.installTranslator(translator)
    try:
        text = describe_error(error)
    finally:
        QCoreApplication.removeTranslator(translator)
    assert "设备" in text and error.values["device"] in text and "{" not in text
    assert text != error.user_message()


def test_message_constants_have_a_chinese_translation() -> None:
    """Templates kept in module constants (NAME_FIX, NAME_MESSAGE, ...) and passed on as
    variables, which the call scan cannot see, are translated too."""
    table = _zh_errors()
    missing = []
    for path in _sources():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)):
                continue
            names = [getattr(t, "id", "") for t in node.targets]
            text = node.value.value
            if isinstance(text, str) and any(n.endswith(("_FIX", "_MESSAGE")) for n in names):
                if text not in table:
                    missing.append((path.relative_to(ROOT).as_posix(), names, text))
    assert missing == []
