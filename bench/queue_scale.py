"""The queue at scale: add, list and claim at 10, 1,000 and 100,000 jobs, in the store and
through the CLI (issue 38, item 9: the commands' own times, Python's start included).

    python bench/queue_scale.py [--sizes 10,1000,100000] [--work DIR] [--no-cli]

For each size N, in a fresh STEPWISE_HOME: one `JobQueue.add` of N jobs (one transaction, as
`queue add --variations`), `JobQueue.views` (what `queue list` and the Queue dock read), and
`claim_next` + `release` with every job queued (the first claim) and with the first half done
(each done job is skipped by its `open` index). Prints seconds, microseconds per job, each as a
ratio of the smallest size's per-job time (1.0 = the store scales linearly), and the database's
size. The jobs have no picture: the store's own cost, not the hashing of inputs. Then the
CLI on that queue (each a fresh `python -m app` process, output to /dev/null): `queue list`,
`queue list --json` and `queue add --variations 10` (the tiny models; no engine: the add
checks what it can without one), each with its difference to the smallest size ("+s").
"""

from __future__ import annotations

import argparse
import os
import subprocess
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
    half = added[: n // 2]  # half done, recorded as the worker records an outcome

    def record_half(conn: object) -> None:
        for job in half:
            queue._record_in(conn, job.id, Outcome("done", "", None, "2026-01-01"))  # type: ignore[arg-type]

    queue._do(record_half)
    started = time.perf_counter()
    claim = queue.claim_next()
    assert claim is not None
    claim.release()
    out["claim_half"] = time.perf_counter() - started
    out["mb"] = queue.file.stat().st_size / 1e6
    return out


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
