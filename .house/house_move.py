#!/usr/bin/env python3
"""Issue 28's house move: app/pipeline/*.py grouped into floors, by a mapping table.

Usage:  python3 /work/tools/house_move.py CHECKOUT [--dry-run] [--no-ruff]
        python3 /work/tools/house_move.py CHECKOUT --face [--dry-run] [--no-ruff]

Deterministic and idempotent: run it twice and the second run changes nothing. It works on a tree
that differs from the one it was written on:
- a module of the table that is absent (already moved, or deleted on that branch) is passed over;
- a pipeline module that is NOT in the table (a new one on another branch) stays where it is;
  only its imports of moved modules are rewritten.

(a) `git mv app/pipeline/OLD.py app/pipeline/NEW.py` for each row (and `git add` of the floors'
    __init__.py files it creates);
(b) rewrites, in every git-tracked file under app/ tests/ bench/ scripts/ installer/, native/*.py,
    every *.md and pyproject.toml:
      from app.pipeline import a, b as c          -> one line per destination package
      app.pipeline.OLD[.X]   (imports, dotted strings in mock/monkeypatch/importlib names)
      app/pipeline/OLD[.py], pipeline/OLD[.py]    (paths in docs and tests)
    then `ruff check --select I --fix` on the Python files it changed (import order), if ruff
    is found (CHECKOUT/.venv/bin/ruff or on PATH).

--face (run it after the move, on a tree that has issue 28's app/pipeline/__init__.py, e.g.
after merging): in app/ui, app/jobs, app/cli, `from app.pipeline.FLOOR.MOD import a, b` becomes
`from app.pipeline import a, b` for each name that app/pipeline/__init__.py hands out from that
module (its `if TYPE_CHECKING:` block is the list). Other names stay where they are; the
"pipeline surface" import contract names them if they break it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

# old module under app/pipeline -> new dotted path under app.pipeline
MAPPING: dict[str, str] = {
    # job/: what one job is, before anything runs
    "params": "job.params",
    "spec": "job.spec",
    "preflight": "job.preflight",
    "frame_checks": "job.frame_checks",
    "output_file": "job.output_file",
    "advice": "job.advice",
    "presets": "job.presets",
    "sdcli_import": "job.sdcli_import",
    "identity": "job.identity",
    # run/: the run folder on disk
    "run_dir": "run.folder",
    "run_records": "run.records",
    "run_format": "run.format",
    "run_entries": "run.entries",
    "run_lock": "run.lock",
    "inputs": "run.inputs",
    "checkpoints": "run.checkpoints",
    "status": "run.status",
    # cache/: what a stage's output is keyed by, and where it is kept
    "cache": "cache.store",
    "keys": "cache.keys",
    "key_sources": "cache.key_sources",
    # execute/: running the stages
    "scheduler": "execute.scheduler",
    "stages": "execute.stages",
    "engine_stage": "execute.engine_stage",
    "fit": "execute.fit",
    "memory_retry": "execute.memory_retry",
    "job_plan": "execute.job_plan",
    "decode_check": "execute.decode_check",
    "failure_kinds": "execute.failure_kinds",
    "accept": "execute.accept",
    "preview_decoder": "execute.preview_decoder",
    # queue/: many jobs, one after another
    "job_queue": "queue.jobs",
    "queue_lock": "queue.lock",
    "queue_records": "queue.records",
    "queue_worker": "queue.worker",
    "variations": "queue.variations",
}

# names that moved between modules: (old module, name) -> new module. The value mapping left
# the parameter table for spec.py (it made the params <-> spec circle). Only `from M import
# name` lines are rewritten; `P.spec_from_values` (params imported as a module) is not.
NAME_MOVES: dict[tuple[str, str], str] = {
    ("app.pipeline.job.params", "spec_from_values"): "app.pipeline.job.spec",
    ("app.pipeline.job.params", "values_from_spec"): "app.pipeline.job.spec",
}

FLOOR_DOCS: dict[str, str] = {
    "job": "What one job is before anything runs: the parameter table, the spec, preflight, advice.",
    "run": "The run folder on disk: manifest, records, format versions, entries, lock, inputs.",
    "cache": "The stage cache: what a stage's output is keyed by, and the store that keeps it.",
    "execute": "Running a job's stages: scheduler, stages, engine stage, memory fit, accept.",
    "queue": "The job queue: many jobs run one after another by a worker.",
}

PKG = "app.pipeline"
ROOTS = ("app/", "tests/", "bench/", "scripts/", "installer/")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True,
                          capture_output=True, text=True).stdout


def move_modules(repo: Path, dry: bool) -> list[str]:
    done = []
    base = repo / "app" / "pipeline"
    for floor, doc in sorted(FLOOR_DOCS.items()):
        init = base / floor / "__init__.py"
        if not init.exists() and any((base / f"{o}.py").exists()
                                     for o, n in MAPPING.items() if n.split(".")[0] == floor):
            done.append(f"create {init.relative_to(repo)}")
            if not dry:
                init.parent.mkdir(exist_ok=True)
                init.write_text(f'"""{doc}"""\n')
                git(repo, "add", str(init.relative_to(repo)))
    for old, new in sorted(MAPPING.items()):
        src = base / f"{old}.py"
        dst = base / (new.replace(".", "/") + ".py")
        if not src.exists():
            continue
        if dst.exists():
            raise SystemExit(f"both {src} and {dst} exist: resolve by hand")
        done.append(f"git mv {src.relative_to(repo)} {dst.relative_to(repo)}")
        if not dry:
            git(repo, "mv", str(src.relative_to(repo)), str(dst.relative_to(repo)))
    return done


def new_leaf_modules() -> dict[str, set[str]]:
    leaves: dict[str, set[str]] = {}
    for new in MAPPING.values():
        floor, leaf = new.split(".", 1)
        leaves.setdefault(floor, set()).add(leaf)
    return leaves


LEAVES = new_leaf_modules()

DOTTED = re.compile(r"(?<![\w.])app\.pipeline\.([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)?)")
SLASHED = re.compile(r"(?<![\w/.-])((?:app/)?pipeline/)([A-Za-z_]\w*)(?![\w/])(\.py\b)?")
FROM_PKG = re.compile(
    r"^(?P<indent>[ \t]*)from app\.pipeline import "
    r"(?:\((?P<paren>[^)]*)\)|(?P<plain>[^\n#]*?))(?P<comment>[ \t]*#[^\n]*)?$",
    re.MULTILINE)


FROM_NAME = re.compile(r"[ \t]+import[ \t]+\(?\s*([A-Za-z_]\w*)")


def is_new_path(first: str, rest: str, after: str) -> bool:
    """`app.pipeline.<first><rest>` already names a floor or a moved module (keeps the script
    idempotent). Only `cache` is both an old module and a floor: `from app.pipeline.cache import
    X` is new when X is one of the floor's modules; the bare name elsewhere is the floor."""
    if first not in LEAVES:
        return False
    if rest:
        return rest[1:] in LEAVES[first]
    m = FROM_NAME.match(after)
    if m:
        return m.group(1) in LEAVES[first]
    return True


def rewrite_dotted(text: str) -> str:
    def sub(m: re.Match[str]) -> str:
        first, rest = m.group(1), m.group(2)
        if first not in MAPPING or is_new_path(first, rest, m.string[m.end():m.end() + 200]):
            return m.group(0)
        return f"{PKG}.{MAPPING[first]}{rest}"
    return DOTTED.sub(sub, text)


def rewrite_slashed(text: str) -> str:
    def sub(m: re.Match[str]) -> str:
        prefix, old, py = m.group(1), m.group(2), m.group(3) or ""
        if old not in MAPPING or old in LEAVES and not py:
            return m.group(0)
        return f"{prefix}{MAPPING[old].replace('.', '/')}{py}"
    return SLASHED.sub(sub, text)


def rewrite_from_pkg(text: str, face: dict[str, str]) -> str:
    """`from app.pipeline import OLD` names a module, unless the checkout's face (issue 28's
    app/pipeline/__init__.py) hands out a name OLD: `variations` is both."""
    def sub(m: re.Match[str]) -> str:
        names_src = m.group("paren") if m.group("paren") is not None else m.group("plain")
        names = [n.strip() for n in names_src.replace("\n", " ").split(",") if n.strip()]
        if not any(n.split()[0] in MAPPING and n.split()[0] not in face for n in names):
            return m.group(0)
        indent, comment = m.group("indent"), m.group("comment") or ""
        groups: dict[str, list[str]] = {}
        for n in names:
            parts = n.split()
            name, alias = parts[0], (parts[2] if len(parts) == 3 and parts[1] == "as" else None)
            if name in MAPPING and name not in face:
                pkg, leaf = MAPPING[name].rsplit(".", 1)
                bound = alias or name
                item = leaf if bound == leaf else f"{leaf} as {bound}"
                groups.setdefault(f"{PKG}.{pkg}", []).append(item)
            else:
                groups.setdefault(PKG, []).append(n)
        lines = []
        for i, (mod, items) in enumerate(sorted(groups.items())):
            lines.append(f"{indent}from {mod} import {', '.join(items)}" + (comment if i == 0 else ""))
        return "\n".join(lines)
    return FROM_PKG.sub(sub, text)


def rewrite_moved_names(text: str) -> str:
    def sub(m: re.Match[str]) -> str:
        mod = m.group("mod")
        names_src = m.group("paren") if m.group("paren") is not None else m.group("plain")
        names = [n.strip() for n in names_src.replace("\n", " ").split(",") if n.strip()]
        moved: dict[str, list[str]] = {}
        kept = []
        for n in names:
            new_mod = NAME_MOVES.get((mod, n.split()[0]))
            if new_mod is None:
                kept.append(n)
            else:
                moved.setdefault(new_mod, []).append(n)
        if not moved:
            return m.group(0)
        indent, comment = m.group("indent"), m.group("comment") or ""
        lines = [f"{indent}from {mod} import {', '.join(kept)}"] if kept else []
        lines += [f"{indent}from {nm} import {', '.join(ns)}" for nm, ns in sorted(moved.items())]
        lines[0] += comment
        return "\n".join(lines)
    return FROM_MOD.sub(sub, text)


def candidate_files(repo: Path) -> list[Path]:
    files = []
    for rel in git(repo, "ls-files").splitlines():
        p = repo / rel
        if not p.is_file():
            continue
        if rel.endswith(".md") or rel == "pyproject.toml":
            files.append(p)
        elif rel.startswith(ROOTS) and rel.endswith((".py", ".md", ".toml", ".txt", ".cfg", ".ini")):
            files.append(p)
        elif rel.startswith("native/") and rel.count("/") == 1 and rel.endswith(".py"):
            files.append(p)
    return sorted(set(files))


def rewrite_files(repo: Path, dry: bool) -> list[Path]:
    face = face_names(repo)
    changed = []
    for p in candidate_files(repo):
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite_moved_names(rewrite_slashed(rewrite_dotted(rewrite_from_pkg(text, face))))
        if new != text:
            changed.append(p)
            if not dry:
                p.write_text(new, encoding="utf-8")
    return changed


def sort_imports(repo: Path, files: list[Path]) -> None:
    py = [str(p) for p in files if p.suffix == ".py"]
    ruff = repo / ".venv" / "bin" / "ruff"
    exe = str(ruff) if ruff.exists() else shutil.which("ruff")
    if not py or exe is None:
        return
    subprocess.run([exe, "check", "--select", "I", "--fix", "--quiet", *py], cwd=repo,
                   check=False, capture_output=True)


FACE_ROOTS = ("app/ui/", "app/jobs/", "app/cli/")
FROM_MOD = re.compile(
    r"^(?P<indent>[ \t]*)from (?P<mod>app\.pipeline\.[\w.]+) import "
    r"(?:\((?P<paren>[^)]*)\)|(?P<plain>[^\n#(]*?))(?P<comment>[ \t]*#[^\n]*)?$",
    re.MULTILINE)


def face_names(repo: Path) -> dict[str, str]:
    """Name -> module for each name app/pipeline/__init__.py hands out (none before issue 28)."""
    import ast
    init = repo / "app" / "pipeline" / "__init__.py"
    if not init.is_file():
        return {}
    tree = ast.parse(init.read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                if isinstance(imp, ast.ImportFrom) and imp.module:
                    found.update((a.asname or a.name, imp.module) for a in imp.names)
    return found


def rewrite_to_face(text: str, face: dict[str, str]) -> str:
    def sub(m: re.Match[str]) -> str:
        names_src = m.group("paren") if m.group("paren") is not None else m.group("plain")
        names = [n.strip() for n in names_src.replace("\n", " ").split(",") if n.strip()]
        handed = [n for n in names if face.get(n.split()[0]) == m.group("mod")]
        if not handed:
            return m.group(0)
        kept = [n for n in names if n not in handed]
        indent, comment = m.group("indent"), m.group("comment") or ""
        lines = [f"{indent}from {PKG} import {', '.join(handed)}{comment}"]
        if kept:
            lines.append(f"{indent}from {m.group('mod')} import {', '.join(kept)}")
        return "\n".join(lines)
    return FROM_MOD.sub(sub, text)


def route_through_face(repo: Path, dry: bool) -> list[Path]:
    face = face_names(repo)
    changed = []
    for rel in git(repo, "ls-files").splitlines():
        p = repo / rel
        if not (rel.startswith(FACE_ROOTS) and rel.endswith(".py") and p.is_file()):
            continue
        text = p.read_text(encoding="utf-8")
        new = rewrite_to_face(text, face)
        if new != text:
            changed.append(p)
            if not dry:
                p.write_text(new, encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__)
        return 2
    dry, no_ruff = "--dry-run" in argv, "--no-ruff" in argv
    repo = Path(args[0]).resolve()
    if not (repo / "app" / "pipeline").is_dir():
        print(f"{repo}: no app/pipeline here")
        return 2
    if "--face" in argv:
        moved, changed = [], route_through_face(repo, dry)
    else:
        moved = move_modules(repo, dry)
        changed = rewrite_files(repo, dry)
    if not dry and not no_ruff:
        sort_imports(repo, changed)
    for line in moved:
        print(line)
    print(f"{len(moved)} moves, {len(changed)} files rewritten" + (" (dry run)" if dry else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
