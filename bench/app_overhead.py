"""Where `python -m app run` spends its time, process by process.

    python bench/app_overhead.py [--sd-stage PATH] [--size 128] [--steps 6] [--repeat 3]

Runs the same img2img + mask + reference job as bench/engine.py's "app" row, in this process
(the CLI's own entry point), with every engine child timed from its spawn to its reaping; a
fresh STEPWISE_HOME each time, so nothing comes from the cache. Prints one row per phase (the
median over the repeats): Python's start-up and imports (timed in a child: `python -c "import
app.cli.parser, app.cli.commands"`), each engine process (`--list-devices`, each stage's
`--plan` and its run), and the Python work between them (prepare, hashing, run.json, the
composite). The tiny random-weight klein models, so the figures are the fixed costs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.engine import _engine  # noqa: E402
from tests.engine.real_engine import THREADS, make_images  # noqa: E402
from tests.models.generate import generate_models  # noqa: E402


def _phase(argv: list[str]) -> str:
    """A child's row name: its stage and whether it is a plan, or its listing flag."""
    if "--stage" in argv:
        stage = argv[argv.index("--stage") + 1]
        return f"{stage} {'plan' if '--plan' in argv else 'run'}"
    return " ".join(a for a in argv[1:] if a.startswith("--")) or argv[0]


def _timed_run(argv: list[str], env: dict[str, str]) -> list[tuple[str, float]]:
    """The CLI run in this process; (phase, seconds) in order, Python's gaps included."""
    from app import cli

    rows: list[tuple[str, float]] = []
    marks = [time.perf_counter()]
    real_init, real_wait = subprocess.Popen.__init__, subprocess.Popen.wait

    def init(self, args, *a, **kw):
        now = time.perf_counter()
        rows.append(("python", now - marks[-1]))
        marks.append(now)
        self._bench_phase = _phase([str(x) for x in args])
        return real_init(self, args, *a, **kw)

    def wait(self, *a, **kw):
        code = real_wait(self, *a, **kw)
        phase = getattr(self, "_bench_phase", None)
        if phase is not None:
            now = time.perf_counter()
            rows.append((phase, now - marks[-1]))
            marks.append(now)
            self._bench_phase = None
        return code

    old_env = dict(os.environ)
    os.environ.update(env)
    subprocess.Popen.__init__, subprocess.Popen.wait = init, wait  # type: ignore[method-assign]
    try:
        code = cli.main(argv)
    finally:
        subprocess.Popen.__init__, subprocess.Popen.wait = real_init, real_wait  # type: ignore[method-assign]
        os.environ.clear()
        os.environ.update(old_env)
    rows.append(("python", time.perf_counter() - marks[-1]))
    if code != 0:
        raise SystemExit(f"python -m app run failed (exit {code})")
    return rows


def _startup_s() -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "import app.cli.parser, app.cli.commands"], cwd=REPO, check=True
    )
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sd-stage", type=Path)
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--models-dir", type=Path)
    args = parser.parse_args(argv)
    sd_stage = _engine(args.sd_stage)
    with tempfile.TemporaryDirectory(prefix="stepwise-bench-") as tmp_name:
        tmp = Path(tmp_name)
        models = generate_models(args.models_dir or tmp / "models")
        images = make_images(tmp / "images", args.size, args.size)
        runs: list[list[tuple[str, float]]] = []
        startup: list[float] = []
        for i in range(args.repeat):
            startup.append(_startup_s())
            run_argv = [
                "run", "--engine", str(sd_stage), "--diffusion-model", str(models.diffusion),
                "--llm", str(models.llm), "--vae", str(models.vae), "-p", "a red fox in the snow",
                "--steps", str(args.steps), "--seed", "42", "--strength", "0.8",
                "-t", str(THREADS), "-i", str(images.init), "--mask", str(images.mask),
                "-r", str(images.ref), "--run-dir", str(tmp / f"run-{i}"),
                "--sampling-method", "euler",
            ]  # fmt: skip
            runs.append(_timed_run(run_argv, {"STEPWISE_HOME": str(tmp / f"home-{i}")}))
    _print(sd_stage, args, startup, runs)
    return 0


def _print(sd_stage: Path, args, startup: list[float], runs) -> None:
    med = statistics.median
    print(f"sd-stage: {sd_stage}")
    print(f"job: img2img + mask + 1 ref, {args.size}x{args.size}, {args.steps} steps, "
          f"median of {args.repeat}")  # fmt: skip
    shapes = {tuple(name for name, _ in r) for r in runs}
    if len(shapes) != 1:
        print("the runs started different processes; the first run's rows:")
    rows = [("python start-up + imports", med(startup))]
    for j, (name, _) in enumerate(runs[0]):
        values = [r[j][1] for r in runs if j < len(r) and r[j][0] == name]
        rows.append((name, med(values)))
    total = sum(s for _, s in rows)
    engine = sum(s for n, s in rows if n.endswith(" run"))
    print(f"{'phase':32} {'s':>8}")
    for name, s in rows:
        if name == "python" and s < 0.005:
            continue
        print(f"{name:32} {s:8.3f}")
    print(f"{'total':32} {total:8.3f}")
    print(f"{'the four stage runs':32} {engine:8.3f}")
    print(f"{'everything else':32} {total - engine:8.3f}")


if __name__ == "__main__":
    sys.exit(main())
