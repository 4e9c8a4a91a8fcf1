"""The queue at scale: add, list and claim at 10, 1,000 and 100,000 jobs, in the store and
through the CLI (issue 38, item 9: the commands' own times, Python's start included).

    python bench/queue_scale.py [--sizes 10,1000,100000] [--work DIR] [--no-cli]

For each size N, in a fresh STEPWISE_HOME: one `JobQueue.add` of N jobs (one transaction, as
`queue add --variations`), `JobQueue.views` (what `queue list` and the Queue dock read), and
`claim_next` + `release` with every job queued (the first claim) and with the first half done
(each done job is skipped by its `open` index). Prints seconds, microseconds per job, each as a
ratio of the smallest size's per-job time (1.0 = the store scales linearly), and the database's
size. The jobs have no picture: the store's own cost, not the hashing of inputs. Then the
Queue dock's read before / after (its first page, JobQueue.page) and `queue list`'s in-process
read before / after (the done jobs' progress from the listing table), half the jobs done with
a run folder each (one run.json hard-linked into each). Then the
CLI on that queue (each a fresh `python -m app` process, output to /dev/null): `queue list`,
`queue list --json` and `queue add --variations 10` (the tiny models; no engine: the add
checks what it can without one), each with its difference to the smallest size ("+s").
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCK_PAGE = 100  # app/jobs/queue_model.py's PAGE (the bench imports no Qt)
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def measure(home: Path, n: int) -> dict[str, float]:
    os.environ["STEPWISE_HOME"] = str(home)
    from app.core.paths import app_paths
    from app.pipeline.job.spec import JobSpec, ModelFiles
    from app.pipeline.queue.jobs import JobQueue, Outcome
    from app.pipeline.queue.variations import variations
    from app.pipeline.run.folder import RUN_FILE, create_run

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
    out["page"] = _seconds(lambda: queue.page(DOCK_PAGE))
    started = time.perf_counter()
    claim = queue.claim_next()
    assert claim is not None
    claim.release()
    out["claim"] = time.perf_counter() - started
    half = added[: n // 2]  # half done, recorded as the worker records an outcome
    template = home / "template-run"  # one finished run's run.json, linked into each folder
    run = create_run(home, spec, template)
    run.steps, run.last_completed_step = spec.steps, spec.steps
    run.save()
    for job in half:
        folder = queue.run_dir_of(job.id)
        folder.mkdir(parents=True)
        os.link(template / RUN_FILE, folder / RUN_FILE)

    def record_half(conn: object) -> None:
        for job in half:
            done = Outcome("done", str(queue.run_dir_of(job.id)), None, "2026-01-01")
            queue._record_in(conn, job.id, done)  # type: ignore[arg-type]

    queue._do(record_half)
    started = time.perf_counter()
    claim = queue.claim_next()
    assert claim is not None
    claim.release()
    out["claim_half"] = time.perf_counter() - started
    # Half done, each with its run folder: the dock's old read (every job's view) and its
    # page; `queue list`'s read as it was (every run folder read) and as it is.
    out["list_half"] = _seconds(queue.views)
    out["page_half"] = _seconds(lambda: queue.page(DOCK_PAGE))
    import app.pipeline.queue.listing as listing_module

    as_it_is = listing_module.listed_view
    listing_module.listed_view = lambda job, *a: as_it_is(dataclasses.replace(job, run=None), *a)
    try:
        out["cli_old_half"] = _seconds(queue.listing)
    finally:
        listing_module.listed_view = as_it_is
    out["cli_new_half"] = _seconds(queue.listing)
    out["mb"] = queue.file.stat().st_size / 1e6
    return out


def _seconds(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def cli_seconds(home: Path, models: tuple[str, str, str], *args: str) -> float:
    """Wall time of one `python -m app ARGS` on the queue in `home` (stdout discarded)."""
    env = dict(os.environ, STEPWISE_HOME=str(home))
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr[-500:]}")
    return took


def measure_cli(home: Path, models: tuple[str, str, str]) -> dict[str, float]:
    model_args = ["--diffusion-model", models[0], "--llm", models[1], "--vae", models[2]]
    return {
        "cli_list": cli_seconds(home, models, "queue", "list"),
        "cli_json": cli_seconds(home, models, "queue", "list", "--json"),
        "cli_add10": cli_seconds(
            home,
            models,
            *("queue", "add", "-p", "a red house", "--variations", "10", "--steps", "4"),
            *model_args,
            *("--engine", str(home / "no-engine")),
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,1000,100000")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--no-cli", action="store_true", help="the store's times only")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        models: tuple[str, str, str] | None = None
        if not args.no_cli:
            from app.engine.tiny_models import generate_models

            made = generate_models(Path(tmp) / "models")
            models = (str(made.diffusion), str(made.llm), str(made.vae))
        for n in sizes:
            home = Path(tmp) / f"home{n}"
            row = measure(home, n)
            if models is not None:
                row.update(measure_cli(home, models))
            rows.append((n, row))
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
    print(
        "\nBefore / after, side by side: the Queue dock's read (before: every job's view, "
        f"JobQueue.views; after: its first page of {DOCK_PAGE}, JobQueue.page) with every job "
        "queued and with half done (each with its run folder); `queue list`'s read in process "
        "(JobQueue.listing) with half done, before (each done job's run.json read) and after "
        "(its progress kept with its outcome)"
    )
    print(
        f"{'jobs':>8} | {'views s':>8} {'page s':>8} {'×':>6} | {'views½ s':>8} {'page½ s':>8} "
        f"{'×':>6} | {'list½ old s':>11} {'new s':>7} {'×':>5}"
    )
    for n, r in rows:
        print(
            f"{n:>8} | {r['list']:>8.3f} {r['page']:>8.4f} {r['list'] / r['page']:>6.0f} | "
            f"{r['list_half']:>8.3f} {r['page_half']:>8.4f} {r['list_half'] / r['page_half']:>6.0f}"
            f" | {r['cli_old_half']:>11.3f} {r['cli_new_half']:>7.3f} "
            f"{r['cli_old_half'] / r['cli_new_half']:>5.1f}"
        )
    if "cli_list" in rows[0][1]:
        first = rows[0][1]
        print(
            f"\n{'jobs':>8} | {'CLI list s':>10} {'+s':>6} | {'list --json s':>13} {'+s':>6} | "
            f"{'add --variations 10 s':>21} {'+s':>6}"
        )
        for n, r in rows:
            print(
                f"{n:>8} | {r['cli_list']:>10.2f} {r['cli_list'] - first['cli_list']:>6.2f} | "
                f"{r['cli_json']:>13.2f} {r['cli_json'] - first['cli_json']:>6.2f} | "
                f"{r['cli_add10']:>21.2f} {r['cli_add10'] - first['cli_add10']:>6.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
