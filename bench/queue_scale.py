"""The queue's store at scale: add, list and claim at 10, 1,000 and 100,000 jobs.

    python bench/queue_scale.py [--sizes 10,1000,100000] [--work DIR]

For each size N, in a fresh STEPWISE_HOME: one `JobQueue.add` of N jobs (one transaction, as
`queue add --variations`), `JobQueue.views` (what `queue list` and the Queue dock read), and
`claim_next` + `release` with every job queued (the first claim) and with the first half done
(each done job is skipped by its `open` index). Prints seconds, microseconds per job, each as a
ratio of the smallest size's per-job time (1.0 = the store scales linearly), and the database's
size. The jobs have no picture: the store's own cost, not the hashing of inputs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def measure(home: Path, n: int) -> dict[str, float]:
    os.environ["STEPWISE_HOME"] = str(home)
    from app.core.paths import app_paths
    from app.pipeline.job.spec import JobSpec, ModelFiles
    from app.pipeline.queue.jobs import JobQueue, Outcome
    from app.pipeline.queue.variations import variations

    queue = JobQueue(app_paths())
    spec = JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="a red house")
    per = min(n, 1000)  # --variations' most; more come from a prompt list, as `queue add` does
    lines = [(i + 1, f"a red house {i}") for i in range(n // per)] if n > per else None
    specs, tags = variations(spec, per, False, lines)
    out: dict[str, float] = {}
    started = time.perf_counter()
    added = queue.add(specs, tags)
    out["add"] = time.perf_counter() - started
    started = time.perf_counter()
    _, views = queue.views()
    out["list"] = time.perf_counter() - started
    assert len(views) == n
    started = time.perf_counter()
    claim = queue.claim_next()
    assert claim is not None
    claim.release()
    out["claim"] = time.perf_counter() - started
    conn_jobs = added[: n // 2]
    import sqlite3

    from app.pipeline.queue import db as queue_db

    with sqlite3.connect(queue.file, isolation_level=None) as conn:  # half done, at once
        conn.execute("BEGIN")
        for job in conn_jobs:
            import dataclasses

            row = queue_db.encode(
                dataclasses.replace(job, outcome=Outcome("done", "", None, "2026-01-01"))
            )
            conn.execute(
                "UPDATE jobs SET doc=?, copy=?, sha256=?, open=0 WHERE id=?",
                (row.doc, row.doc, row.sha256, job.id),
            )
        conn.execute("COMMIT")
    started = time.perf_counter()
    claim = queue.claim_next()
    assert claim is not None
    claim.release()
    out["claim_half"] = time.perf_counter() - started
    out["mb"] = queue.file.stat().st_size / 1e6
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,1000,100000")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        for n in sizes:
            rows.append((n, measure(Path(tmp) / f"home{n}", n)))
    base = {k: rows[0][1][k] / rows[0][0] for k in ("add", "list")}
    print(
        f"{'jobs':>8} | {'add s':>8} {'µs/job':>8} {'ratio':>6} | {'list s':>8} {'µs/job':>8} "
        f"{'ratio':>6} | {'claim s':>8} {'claim½ s':>8} | {'db MB':>7}"
    )
    for n, r in rows:
        print(
            f"{n:>8} | {r['add']:>8.3f} {r['add'] / n * 1e6:>8.1f} "
            f"{r['add'] / n / base['add']:>6.2f}"
            f" | {r['list']:>8.3f} {r['list'] / n * 1e6:>8.1f} "
            f"{r['list'] / n / base['list']:>6.2f} | {r['claim']:>8.3f} {r['claim_half']:>8.3f}"
            f" | {r['mb']:>7.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
