"""The queue's damage matrix (issue 38, items 1-5): each case damages a queue of N jobs the way
a crash, a bad restore or a sync tool does, then one `python -m app queue list` runs.

    python bench/queue_damage_matrix.py [--jobs 30] [--work DIR]

Per case: whether the command said it (a warning naming the damage; no traceback), how many
jobs it lists afterwards ("listed"), how many were intact in the damaged bytes ("held": a
job whose whole document, with its sha256 beside it, is still in the file or its -wal) and
how many were lost. The flag and text-column cases are repaired, not said, by `queue list`.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA wal_autocheckpoint=0")
conn.execute("SELECT 1 FROM jobs").fetchall()
print("ready", flush=True)
sys.stdin.read()
"""


def _checkpoint(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _flip(offset: int) -> Callable[[Path], None]:
    def damage(db: Path) -> None:
        _checkpoint(db)
        data = bytearray(db.read_bytes())
        data[offset] ^= 0xFF
        db.write_bytes(bytes(data))

    return damage


def _cut_last_page(db: Path) -> None:
    _checkpoint(db)
    with open(db, "r+b") as f:
        f.truncate(max(0, db.stat().st_size - 4096))


def _zero(db: Path) -> None:
    _checkpoint(db)
    with open(db, "r+b") as f:
        f.truncate(0)


def _missing(db: Path) -> None:
    _checkpoint(db)
    db.unlink()
    for side in ("-wal", "-shm"):
        Path(str(db) + side).unlink(missing_ok=True)


def _sql(statement: str) -> Callable[[Path], None]:
    def damage(db: Path) -> None:
        with sqlite3.connect(db, isolation_level=None) as conn:
            first = conn.execute("SELECT id FROM jobs ORDER BY position LIMIT 1").fetchone()[0]
            conn.execute(statement, (first,))

    return damage


CASES: dict[str, Callable[[Path], None]] = {
    "0-byte queue.db": _zero,
    "queue.db missing": _missing,
    "header byte 0": _flip(0),
    "header byte 16": _flip(16),
    "header byte 18": _flip(18),
    "header byte 28": _flip(28),
    "last 4 KiB cut": _cut_last_page,
    "open flag flipped": _sql("UPDATE jobs SET open = 0 WHERE id = ?"),
    "files column damaged": _sql("UPDATE jobs SET files = CAST(X'FF00' AS TEXT) WHERE id = ?"),
}
LIVE_CASES = ("0-byte queue.db during a run", "-wal and -shm removed while open")


def _held(db: Path, digests: list[str]) -> int:
    """Jobs whose whole document, with its sha256 beside it, is still in the file or -wal."""
    from app.pipeline.queue.salvage import scan_documents

    found: set[str] = set()
    for path in (db, Path(str(db) + "-wal")):
        if path.exists():
            found |= {row[3] for _, row in scan_documents(path.read_bytes())}
    return len(found & set(digests))


def run_case(name: str, work: Path, jobs: int) -> tuple[str, int, int, int, int]:
    home = work / "home"
    env = dict(os.environ, STEPWISE_HOME=str(home))
    os.environ["STEPWISE_HOME"] = str(home)
    from app.core.paths import app_paths
    from app.pipeline.job.spec import JobSpec, ModelFiles
    from app.pipeline.queue.jobs import JobQueue

    queue = JobQueue(app_paths())
    spec = JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="a red house")
    queue.add([spec] * jobs)
    with sqlite3.connect(queue.file) as conn:
        digests = [d for (d,) in conn.execute("SELECT sha256 FROM jobs")]
    holder = None
    if name in LIVE_CASES:  # another Stepwise process holds the queue open meanwhile
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(queue.file)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        late = jobs // 5
        queue.add([spec] * late)  # accepted while held: in the -wal only
        with sqlite3.connect(queue.file) as conn:
            digests = [d for (d,) in conn.execute("SELECT sha256 FROM jobs")]
        if name.startswith("0-byte"):
            with open(queue.file, "r+b") as f:
                f.truncate(0)
        else:
            for side in ("-wal", "-shm"):
                os.unlink(str(queue.file) + side)
    else:
        CASES[name](queue.file)
    held = _held(queue.file, digests)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "app", "queue", "list", "--json"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        if holder is not None:
            holder.communicate("", timeout=60)
    import json

    said = "warning:" in done.stderr and "Traceback" not in done.stderr
    listed = len(json.loads(done.stdout)) if done.returncode == 0 else 0
    total = len(digests)
    return (
        ("yes" if said else "NO") + f" (exit {done.returncode})",
        total,
        held,
        listed,
        total - listed,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=30)
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    print(f"{'case':<34} {'said':<12} {'jobs':>5} {'held':>5} {'listed':>7} {'lost':>5}")
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        for n, name in enumerate([*CASES, *LIVE_CASES]):
            folder = Path(tmp) / f"case{n}"
            folder.mkdir()
            said, total, held, listed, lost = run_case(name, folder, args.jobs)
            print(f"{name:<34} {said:<12} {total:>5} {held:>5} {listed:>7} {lost:>5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
