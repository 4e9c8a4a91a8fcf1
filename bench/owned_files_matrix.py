"""The bad-entry matrix (issue 29): every entry of app/pipeline/run/owned_entries.ENTRIES × {fifo,
folder, symlink, hard link, unreadable, missing} × every command that opens it.

    python bench/owned_files_matrix.py [--short] [--work DIR] [--sd-stage PATH]

Each case makes a fresh STEPWISE_HOME with one queued job (the tiny models, text to image)
and its run folder (runs/<job id>, made as the worker makes it), plants the bad thing at the
entry, and runs the command (`python -m app …`, 60 s at most). A case passes when the command
ends in time, prints no traceback, says something when it fails, leaves the files outside the
data folder that a link points at unchanged, and leaves what was planted where it was
(Stepwise deletes nothing it did not make). --short: each entry × each kind once, the command
taken in turn from the entry's list (the suite runs it: tests/pipeline/test_owned_files.py).
As root, "unreadable" (mode 000) cannot stop a read: those cases still must not crash.
"""

from __future__ import annotations

import argparse
import os
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.cli.exits import Exit  # noqa: E402
from app.pipeline.run.owned_entries import CACHE, ENTRIES, QUEUE, RUN, SETTINGS, Entry  # noqa: E402

KINDS = ("fifo", "folder", "symlink", "hardlink", "unreadable", "missing")
CASE_TIMEOUT_S = 60.0
OUTSIDE_TEXT = "the user's own file, outside the data folder\n"
CACHE_KEY = "0" * 64


@dataclass(frozen=True)
class Case:
    entry: Entry
    kind: str
    command: str

    @property
    def name(self) -> str:
        return f"{self.entry.folder}:{self.entry.path} × {self.kind} × {self.command}"


def cases(short: bool = False) -> list[Case]:
    out: list[Case] = []
    for entry in ENTRIES:
        if not entry.commands:
            continue
        for n, kind in enumerate(KINDS):
            if short:
                out.append(Case(entry, kind, entry.commands[n % len(entry.commands)]))
            else:
                out.extend(Case(entry, kind, command) for command in entry.commands)
    return out


@dataclass(frozen=True)
class World:
    models: tuple[str, str, str]  # diffusion, llm, vae
    engine: Path  # a path with no engine: no case runs a stage


def _plant(where: Path, kind: str, outside: Path) -> None:
    if where.is_dir() and not where.is_symlink():
        import shutil

        shutil.rmtree(where)
    elif os.path.lexists(where):
        where.unlink()
    where.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(where)
    elif kind == "folder":
        where.mkdir()
        (where / "user.txt").write_text("kept")
    elif kind == "symlink":
        where.symlink_to(outside)
    elif kind == "hardlink":
        os.link(outside, where)
    elif kind == "unreadable":
        where.write_text("{}")
        where.chmod(0)


def _still_planted(where: Path, kind: str) -> bool:
    if kind == "fifo":
        return stat.S_ISFIFO(os.lstat(where).st_mode) if os.path.lexists(where) else False
    if kind == "folder":
        return (where / "user.txt").is_file()
    if kind == "symlink":
        return where.is_symlink()
    return True  # a hard link or a file of ours may be replaced whole (never written through)


def run_case(case: Case, work: Path, world: World) -> str | None:
    """None when the case passes, else what went wrong."""
    home = work / "home"
    outside = work / "outside.txt"
    outside.write_text(OUTSIDE_TEXT)
    env = dict(os.environ, STEPWISE_HOME=str(home))
    old = os.environ.get("STEPWISE_HOME")
    os.environ["STEPWISE_HOME"] = str(home)
    try:
        from app.core.paths import app_paths
        from app.pipeline.job.spec import JobSpec, ModelFiles
        from app.pipeline.queue.jobs import JobQueue
        from app.pipeline.run.folder import create_run

        paths = app_paths()
        queue = JobQueue(paths)
        spec = JobSpec(models=ModelFiles(*world.models), prompt="a red house", steps=1)
        (job,) = queue.add([spec])
        run_dir = queue.run_dir_of(job.id)
        create_run(paths.runs_dir, spec, run_dir)
        base = {
            RUN: run_dir,
            QUEUE: queue.dir,
            SETTINGS: paths.config_dir,
            CACHE: paths.stage_cache_dir,
        }[case.entry.folder]
    finally:
        if old is None:
            os.environ.pop("STEPWISE_HOME", None)
        else:
            os.environ["STEPWISE_HOME"] = old
    # A cache entry's folder is named by its key (any well-formed one: without an engine no
    # stage runs, so the case checks that the commands' scans of the cache survive it).
    where = base / case.entry.path.replace("<key>", f"{CACHE_KEY[:2]}/{CACHE_KEY}")
    _plant(where, case.kind, outside)
    if case.entry.path.startswith("queue.db"):
        for suffix in ("-wal", "-shm"):
            side = base / f"queue.db{suffix}"
            if side != where:
                side.unlink(missing_ok=True)
    args = {
        "status": ["status", str(run_dir)],
        "resume": ["resume", str(run_dir), "--engine", str(world.engine)],
        "queue list": ["queue", "list"],
        "queue run": ["queue", "run", "--engine", str(world.engine)],
        "queue add": ["queue", "add", "-p", "a cat", "--steps", "1", "--engine", str(world.engine)]
        + ["--diffusion-model", world.models[0], "--llm", world.models[1]]
        + ["--vae", world.models[2]],
    }[case.command]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "app", *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=CASE_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return "hung"
    finally:
        if case.kind == "unreadable" and os.path.lexists(where) and not where.is_symlink():
            where.chmod(0o644)
    said = done.stdout + done.stderr
    if "Traceback" in said:
        return "traceback: " + said.strip().splitlines()[-1]
    if outside.read_text() != OUTSIDE_TEXT:
        return "wrote through to a file outside"
    if not _still_planted(where, case.kind):
        return "removed what it did not make"
    # a refusal is FAILED, or USAGE for what the command line named (a folder that is no run)
    if done.returncode not in (Exit.OK, Exit.FAILED, Exit.USAGE):
        return f"exit {done.returncode}: {said.strip()[-200:]}"
    if done.returncode != Exit.OK and not done.stderr.strip():
        return "failed without a message"
    return None


def tiny_world(work: Path, sd_stage: Path | None = None) -> World:
    from app.engine.tiny_models import generate_models

    models = generate_models(work / "models")
    return World(
        (str(models.diffusion), str(models.llm), str(models.vae)),
        sd_stage if sd_stage is not None else work / "no-engine",
    )


def run_matrix(world: World, work: Path, short: bool) -> list[tuple[Case, str | None]]:
    results = []
    for n, case in enumerate(cases(short)):
        folder = work / f"case{n:03d}"
        folder.mkdir(parents=True)
        results.append((case, run_case(case, folder, world)))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        world = tiny_world(Path(tmp))
        results = run_matrix(world, Path(tmp), args.short)
    bad = [(c, why) for c, why in results if why is not None]
    entries = len({c.entry for c, _ in results})
    commands = len({c.command for c, _ in results})
    print(
        f"{len(results)} cases ({entries} entries × {len(KINDS)} kinds × their commands, "
        f"{commands} commands): {len(results) - len(bad)} clean, {len(bad)} not"
    )
    for case, why in bad:
        print(f"  {case.name}: {why}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
