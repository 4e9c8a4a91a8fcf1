"""The timings the suite no longer asserts (issue 20: tests assert behaviour), measured side by
side in one run and printed as ratios:

- `--plan` of a stage ÷ the real stage (the plan reads no weights and runs no graph);
- refusing a too-long prompt ÷ encoding a short one (refused before the model loads);
- the soft compositor's per-step patch ÷ a whole-photo composite (4000×3000, only masked);
- stopping a wedged engine (ignores cancel and SIGTERM) ÷ the stop deadline + terminate grace.

    .venv/bin/python bench/timings.py [--repeat 3]

Tiny random-weight models (tests/models); sd-stage found as the app finds it.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.engine.argv import CommonArgs, DiffuseArgs, LlmEncodeArgs  # noqa: E402
from app.engine.children import STOP_GRACE_S, ChildGroup, WorkerStopped  # noqa: E402
from app.engine.listing import run_engine_once  # noqa: E402
from app.engine.locate import find_sd_stage  # noqa: E402
from tests.engine.test_children import wedged_engine  # noqa: E402
from tests.models.generate import generate_models  # noqa: E402


def _median(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _run(argv: list[str]) -> None:
    subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, check=False)


def engine_rows(engine: Path, folder: Path, repeat: int) -> list[tuple[str, float, float]]:
    models = generate_models(folder / "models")
    common = CommonArgs(threads=1)
    cond = folder / "cond.bin"
    encode = LlmEncodeArgs(llm=models.llm, prompt="a fox", save_embeddings=cond, common=common)
    _run([str(engine), *encode.to_argv()])
    diffuse = DiffuseArgs(
        diffusion_model=models.diffusion, load_embeddings=cond, width=128, height=128, steps=2,
        seed=1, save_latent=folder / "final.bin", checkpoint_dir=folder / "ck", common=common,
    )  # fmt: skip
    argv = [str(engine), *diffuse.to_argv()]
    plan_s = _median(lambda: _run([*argv, "--plan"]), repeat)
    run_s = _median(lambda: _run(argv), repeat)
    long_prompt = ("a red fox in the snow " * 2000)[:40_000]
    refuse = LlmEncodeArgs(
        llm=models.llm, prompt=long_prompt, save_embeddings=folder / "c2.bin", common=common
    )
    refuse_s = _median(lambda: _run([str(engine), *refuse.to_argv()]), repeat)
    encode_s = _median(lambda: _run([str(engine), *encode.to_argv()]), repeat)
    return [
        ("diffuse --plan ÷ diffuse (128², 2 steps)", plan_s, run_s),
        ("refuse a 40,000-char prompt ÷ encode 'a fox'", refuse_s, encode_s),
    ]


def compositor_row(repeat: int) -> tuple[str, float, float]:
    import numpy as np

    from app.imaging import prepare as prep

    photo = np.random.default_rng(4).integers(0, 256, (3000, 4000, 3), np.uint8)
    mask = np.zeros((3000, 4000), np.uint8)
    mask[1500:1700, 2000:2256] = 255
    prepared = prep.prepare(photo, mask, prep.PrepareOptions(only_masked=True))
    compositor = prep.soft_compositor(prepared)
    width, height = prepared.record.input_size
    preview = np.full((height, width, 3), 30, np.uint8)
    patch_s = _median(lambda: compositor.patch(preview), repeat)
    whole_s = _median(lambda: compositor.composite(preview), repeat)
    return ("soft compositor patch ÷ whole composite (4000×3000)", patch_s, whole_s)


def stop_row() -> tuple[str, float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        group = ChildGroup("bench")

        def call() -> None:
            with group.scope(), contextlib.suppress(WorkerStopped):
                run_engine_once(wedged_engine(Path(tmp)), [], "plan", timeout_s=600)

        thread = threading.Thread(target=call)
        thread.start()
        while not group.running():
            time.sleep(0.01)
        started = time.perf_counter()
        group.stop()
        thread.join()
        stopped = time.perf_counter() - started
    return ("stop a wedged child ÷ its terminate grace", stopped, STOP_GRACE_S)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sd-stage", type=Path)
    args = parser.parse_args(argv)
    engine = find_sd_stage(args.sd_stage)
    with tempfile.TemporaryDirectory() as tmp:
        rows = engine_rows(engine, Path(tmp), args.repeat)
    rows.append(compositor_row(args.repeat))
    rows.append(stop_row())
    print(f"{'measurement':55} {'a (s)':>9} {'b (s)':>9} {'a ÷ b':>7}")
    for name, a, b in rows:
        print(f"{name:55} {a:9.3f} {b:9.3f} {a / b:7.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
