"""One owner per fact: the mask threshold is one constant (app/imaging/mask_ops.BINARY_THRESHOLD)
and the run folder's names are app/pipeline/run/records.py's alone; every other module derives them.
Scanned in the syntax tree, so a comment or a docstring that mentions 128 does not count."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from app.engine.argv import STAGE_MODELS
from app.engine.stage import Stage
from app.imaging.mask_ops import BINARY_THRESHOLD
from app.pipeline.run import records as run_records

APP = Path(__file__).resolve().parent.parent / "app"
OWNER_OF_THRESHOLD = APP / "imaging" / "mask_ops.py"
# What a run folder holds, by name (ARCHITECTURE.md "Run folders")
RUN_NAMES = {
    v
    for k, v in vars(run_records).items()
    if k.isupper() and isinstance(v, str) and (k.endswith("_DIR") or "." in v)
}

# The same words for other folders: the data folder's log folder, the GUI's cache of inputs.
OTHER_FOLDERS = {("core/paths.py", "logs"), ("jobs/generation.py", "inputs")}


@functools.cache  # parsed once for every scan here (the fast tier's slowest tests otherwise)
def _trees() -> list[tuple[Path, ast.AST]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(APP.rglob("*.py"))]


def test_the_run_names_are_known() -> None:
    assert {"prepared", "checkpoints", "steps", "previews", "logs", "result.png"} <= RUN_NAMES


def test_no_module_compares_a_mask_to_its_own_threshold() -> None:
    found = []
    for path, tree in _trees():
        if path == OWNER_OF_THRESHOLD:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and any(
                isinstance(c, ast.Constant) and c.value == BINARY_THRESHOLD
                for c in node.comparators
            ):
                found.append(f"{path.relative_to(APP)}:{node.lineno}")
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                if node.value.value == BINARY_THRESHOLD and any("MASK" in n for n in names):
                    found.append(f"{path.relative_to(APP)}:{node.lineno}")
    assert found == [], f"compare with mask_ops.BINARY_THRESHOLD instead: {found}"


def test_only_the_pipeline_names_what_a_run_folder_holds() -> None:
    found = []
    for path, tree in _trees():
        if path.relative_to(APP).parts[0] == "pipeline":
            continue
        for node in ast.walk(tree):
            strings = []
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                strings = [node.right]  # run_dir / "checkpoints"
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                if all(isinstance(t, ast.Name) and t.id.isupper() for t in node.targets):
                    strings = [node.value]  # CHECKPOINT_DIR = "checkpoints"
            for s in strings:
                where = path.relative_to(APP).as_posix()
                if isinstance(s, ast.Constant) and s.value in RUN_NAMES:
                    if (where, s.value) in OTHER_FOLDERS:
                        continue
                    found.append(f"{path.relative_to(APP)}:{node.lineno} {s.value!r}")
    assert found == [], f"import the name from app/pipeline/run/records.py: {found}"


def _names(tree: ast.AST) -> list[tuple[int, str]]:
    """The string constants of a module that could be file names or their patterns (no
    whitespace: not a docstring or a sentence), the literal parts of f-strings included."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):  # f"preview_{step:03d}.png" -> "preview_{}.png"
            text = "".join(
                str(part.value) if isinstance(part, ast.Constant) else "{}" for part in node.values
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if not any(c.isspace() for c in text):
            found.append((node.lineno, text))
    return found


def test_only_run_records_knows_the_step_preview_name() -> None:
    """The engine's preview_NNN.png (native/src/checkpoints.cpp) is written as a pattern once,
    in app/pipeline/run/records.py; the strip and the run history ask it."""
    owner = APP / "pipeline" / "run" / "records.py"
    found = [
        f"{path.relative_to(APP)}:{line} {text!r}"
        for path, tree in _trees()
        if path != owner
        for line, text in _names(tree)
        if "preview_" in text and ".png" in text
    ]
    assert found == [], f"use run_records.preview_file / preview_step: {found}"
    assert run_records.preview_file(7) == "preview_007.png"
    assert run_records.preview_step("preview_007.png") == 7
    assert run_records.preview_step("preview_1234.png") == 1234
    assert run_records.preview_step("decoded_007.png") is None
    assert run_records.preview_step("preview_007.png.tmp") is None


def test_one_table_says_which_module_a_stage_loads() -> None:
    """engine/argv.STAGE_MODELS alone pairs a stage with its module or model ("diffuse" →
    "diffusion", "llm-encode" → "te" / "llm"): no dict literal elsewhere maps one to the other."""
    from app.engine.argv import PLACEMENT_MODULES, STAGE_MODELS

    stages = set(STAGE_MODELS)
    modules = set(PLACEMENT_MODULES) | {m.model for m in STAGE_MODELS.values()}
    owner = APP / "engine" / "argv.py"
    found = []
    for path, tree in _trees():
        if path == owner:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Dict):
                continue
            pairs = [
                (k.value, v.value)
                for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)
            ]
            if any((k in stages and v in modules) or (k in modules and v in stages)
                   for k, v in pairs):  # fmt: skip
                found.append(f"{path.relative_to(APP)}:{node.lineno}")
    assert found == [], f"read app/engine/argv.STAGE_MODELS instead: {found}"


# The stage names are app/engine/stage.py's `Stage` (a str enum: run.json and the engine protocol
# keep the plain values). Below the UI a bare stage name is a second table in waiting.
STAGE_NAMES = {s.value for s in Stage}
STAGE_SCANNED = ("pipeline", "engine")
# (module, value): the same word for something else, or a module another branch owns now.
NOT_A_STAGE = {
    ("pipeline/job/spec.py", "prepare"),  # JobSpec's `prepare` group (PrepareOptions)
    ("pipeline/execute/engine_stage.py", "diffuse"),  # the queue branch's file (issue 39)
}


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr)
    }


def test_stage_names_come_from_the_stage_enum() -> None:
    owner = APP / "engine" / "stage.py"
    found = []
    for path, tree in _trees():
        rel = path.relative_to(APP)
        if path == owner or rel.parts[0] not in STAGE_SCANNED:
            continue
        dict_keys = {id(k) for n in ast.walk(tree) if isinstance(n, ast.Dict) for k in n.keys}
        skip = _docstrings(tree) | dict_keys  # a cache key's payload names its parts
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and node.value in STAGE_NAMES
                and id(node) not in skip
                and (rel.as_posix(), node.value) not in NOT_A_STAGE
            ):
                found.append(f"{rel}:{node.lineno} {node.value!r}")
    assert found == [], f"use app.engine.stage.Stage: {found}"


def test_the_stage_tables_are_the_enums() -> None:
    assert run_records.STAGES == tuple(Stage)
    assert set(run_records.ENGINE_STAGES) == set(STAGE_MODELS)
    assert [s.on_engine for s in Stage] == [False, True, True, True, True, False]


def test_guided_has_one_owner() -> None:
    """ "cfg ≠ 1" (the negative prompt encoded, two passes per step) is JobSpec.guided alone."""
    owner = APP / "pipeline" / "job" / "spec.py"
    found = []
    for path, tree in _trees():
        if path == owner:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            names_cfg = any("cfg_scale" in ast.unparse(s) for s in sides)
            one = any(isinstance(s, ast.Constant) and s.value == 1 for s in sides)
            if names_cfg and (one or any("CFG_SCALE" in ast.unparse(s) for s in sides)):
                found.append(f"{path.relative_to(APP)}:{node.lineno}")
    assert found == [], f"ask JobSpec.guided: {found}"


# The one engine locator: the pipeline's engine_binary() (PipelineAPI). engine_info.py reports
# which engine would run (a missing one is its data, not a failure).
LOCATORS = {"engine/locate.py", "pipeline/runner.py", "pipeline/engine_info.py"}


def test_the_engine_is_located_in_one_place() -> None:
    found = []
    for path, tree in _trees():
        rel = path.relative_to(APP).as_posix()
        if rel in LOCATORS:
            continue
        for node in ast.walk(tree):
            name = node.func if isinstance(node, ast.Call) else None
            called = getattr(name, "id", None) or getattr(name, "attr", None)
            if called == "find_sd_stage":
                found.append(f"{rel}:{node.lineno}")
    assert found == [], f"ask PipelineAPI.engine_binary(): {found}"


def test_event_streams_are_closed_as_generators() -> None:
    """execute(), decode_step() and accept_step() return an EventStream (a generator): a caller
    closes it, never asks whether it can (`getattr(events, "close")`)."""
    found = []
    for path, tree in _trees():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "getattr"
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value == "close"
            ):
                found.append(f"{path.relative_to(APP)}:{node.lineno}")
    assert found == [], f"type the stream as events.EventStream and close it: {found}"


def test_no_module_imports_anothers_private_name() -> None:
    """A name with a leading underscore is its module's own (accept.py once took the
    scheduler's `_Devices`): what another module needs is public, with a docstring."""
    found = []
    for path, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("app"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                private = [n for n in private if not n.startswith("__")]
                if private:
                    found.append(f"{path.relative_to(APP)}:{node.lineno} {private}")
    assert found == [], found
