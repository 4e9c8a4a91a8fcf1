"""The UI side of a run: how long the event loop stalls while a run streams previews into the
generation panel (target ≤ 50 ms), and how long a second identical run takes next to the first
(the prompt encoding and the image latent come from the cache). Prints one table.

    .venv/bin/python bench/runner.py [--steps N] [--scripted-only] [--engine PATH]

Two streams are measured side by side in one process:
  engine    the real sd-stage (native/build.py, cached) with the tiny test models, full panel
  scripted  tests/fakes/fake_pipeline.py, writing a large preview PNG every few milliseconds, so
            the worker's decoding and the UI's coalescing are pushed harder than a real engine can
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
if not os.environ.get("DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QElapsedTimer, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

STALL_TARGET_MS = 50.0
TICK_MS = 5
RUN_TIMEOUT_S = 600.0


class StallMeter:
    """A 5 ms timer in the UI thread; the longest gap between ticks beyond 5 ms is a stall."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.clock = QElapsedTimer()
        self.worst_ms = 0.0
        self.streaming_worst_ms = 0.0
        self.streaming = False
        self.ticks = 0

    def start(self) -> None:
        self.worst_ms = 0.0
        self.streaming_worst_ms = 0.0
        self.streaming = False
        self.ticks = 0
        self.clock.start()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _tick(self) -> None:
        gap = self.clock.nsecsElapsed() / 1e6
        self.clock.restart()
        self.ticks += 1
        if self.ticks > 1:
            self.worst_ms = max(self.worst_ms, gap - TICK_MS)
            if self.streaming:
                self.streaming_worst_ms = max(self.streaming_worst_ms, gap - TICK_MS)


def wait_idle(app: QApplication, panel, timeout_s: float = RUN_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while panel.model.state.busy or panel.model.session.busy:
        app.processEvents()
        time.sleep(0.001)
        if time.monotonic() > deadline:
            raise TimeoutError("the run did not finish")


def make_panel(session, settings):
    from app.jobs.generation import GenerationModel
    from app.ui.generation import GenerationPanel
    from app.ui.shell.job_settings import form_from_settings

    panel = GenerationPanel(GenerationModel(form_from_settings(settings), session))
    panel._first_show = False
    panel.resize(560, 980)
    panel.show()
    return panel


def timed_run(app: QApplication, panel, meter: StallMeter) -> tuple[float, int, int]:
    """Runs all stages; returns (seconds, previews delivered to the view, previews saved)."""
    counts = {"ready": 0, "saved": 0}

    def saved(*_: object) -> None:
        counts["saved"] += 1
        meter.streaming = True  # from the first preview to the end of the run

    def bind(runner) -> None:
        runner.preview_ready.connect(lambda *_: counts.__setitem__("ready", counts["ready"] + 1))
        runner.preview_saved.connect(saved)
        runner.run_ended.connect(lambda *_: setattr(meter, "streaming", False))

    panel.model.session.runner_started.connect(bind)
    # The Run tab is on screen before the run starts, as it is long before a real engine's first
    # preview; its first paint is counted in "incl. start", not in "while streaming".
    panel.tabs.setCurrentIndex(1)
    settle = time.monotonic() + 0.3
    while time.monotonic() < settle:
        app.processEvents()
        time.sleep(0.005)
    meter.start()
    started = time.perf_counter()
    panel.run_all()
    wait_idle(app, panel)
    seconds = time.perf_counter() - started
    meter.stop()
    panel.model.session.runner_started.disconnect(bind)
    if panel.error_banner.isVisible():
        raise RuntimeError(panel.error_banner.text())
    return seconds, counts["ready"], counts["saved"]


def bench_engine(app: QApplication, engine: Path, steps: int, work: Path) -> list[tuple]:
    from app.core.paths import app_paths
    from app.core.settings import Settings
    from app.jobs.run_session import RunSession
    from app.pipeline.selftest import selftest_images as _selftest_images
    from tests.models.generate import generate_models

    models = generate_models(work / "models")
    image, mask = _selftest_images(work / "in")
    settings = Settings()
    settings.job.update(
        diffusion_model=str(models.diffusion),
        llm_model=str(models.llm),
        vae_model=str(models.vae),
        prompt="a blue door",
        steps=steps,
        llm_device="cpu",
        diffusion_device="cpu",
        vae_device="cpu",
    )
    meter = StallMeter()
    rows = []
    times = []
    for label in ("first run", "second identical run"):
        panel = make_panel(RunSession(app_paths(), engine=engine), settings)
        from app.imaging.io import load_image, load_mask

        panel.model.inputs.set_document(load_image(image), load_mask(mask))
        seconds, ready, saved = timed_run(app, panel, meter)
        llm = panel.run_view.stage_list.state("llm-encode")
        times.append(seconds)
        rows.append(
            (
                f"engine, {label}",
                f"{seconds:.2f} s",
                f"llm-encode {llm}",
                f"{meter.streaming_worst_ms:.1f} ms",
                f"{meter.worst_ms:.1f} ms",
                f"{saved}/{ready}",
            )
        )
        panel.shutdown()
        panel.deleteLater()
    rows.append(
        ("engine, second / first", f"{times[1] / times[0]:.2f}×", "< 1 (cache)", "", "", "")
    )
    return rows


def bench_scripted(app: QApplication, steps: int, work: Path, size_px: int) -> list[tuple]:
    # Big previews, arriving as fast as the disk allows: the worst case for the UI. The engine
    # writes them in its own process, so they are made before the run and only copied during it
    # (encoding PNGs in this process would hold the GIL, which a real run never does).
    import shutil

    from PIL import Image

    from app.core.paths import app_paths
    from app.core.settings import Settings
    from app.jobs.run_session import RunSession
    from tests.fakes.fake_pipeline import FakePipeline

    premade: list[Path] = []
    for i in range(6):
        premade.append(work / "premade" / f"{i}.png")
        premade[-1].parent.mkdir(parents=True, exist_ok=True)
        color = (i * 50 % 256, 90, 180)
        Image.new("RGB", (size_px, size_px), color).save(premade[-1], compress_level=1)

    def big_preview(path: Path, step: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(premade[step % len(premade)], path)

    settings = Settings()
    for name in ("diffusion_model", "llm_model"):
        fake = work / f"{name}.gguf"
        fake.write_bytes(b"GGUF" + b"\0" * 4096)
        settings.job[name] = str(fake)
    settings.job["vae_model"] = str(_fake_safetensors(work / "vae.safetensors"))
    settings.job.update(prompt="scripted", steps=steps)
    pipeline = FakePipeline(work / "scripted-runs", step_s=0.002, preview=big_preview)
    session = RunSession(app_paths(), pipeline=pipeline)
    panel = make_panel(session, settings)
    meter = StallMeter()
    seconds, ready, saved = timed_run(app, panel, meter)
    panel.shutdown()
    if saved != steps:
        raise RuntimeError(f"the scripted stream saved {saved} previews, not {steps}")
    return [
        (
            f"scripted, {size_px}px previews",
            f"{seconds:.2f} s",
            f"{steps} steps",
            f"{meter.streaming_worst_ms:.1f} ms",
            f"{meter.worst_ms:.1f} ms",
            f"{saved}/{ready}",
        )
    ]


def bench_idle(app: QApplication, seconds: float = 2.0) -> tuple:
    """The same meter on an idle event loop: the machine's own noise (other processes, the
    scheduler), measured at the same time, so the run's rows can be read against it."""
    meter = StallMeter()
    meter.start()
    meter.streaming = True
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.001)
    meter.stop()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        "idle event loop (baseline)",
        f"{seconds:.2f} s",
        f"load avg {load:.1f}",
        f"{meter.streaming_worst_ms:.1f} ms",
        f"{meter.worst_ms:.1f} ms",
        "",
    )


def _fake_safetensors(path: Path) -> Path:
    import json
    import struct

    header = json.dumps({"__metadata__": {}}).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 2048)
    return path


def build_engine() -> Path:
    out = subprocess.run(
        [sys.executable, str(ROOT / "native" / "build.py")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--engine", help="sd-stage to use (default: native/build.py's)")
    parser.add_argument("--scripted-only", action="store_true")
    parser.add_argument("--preview-px", type=int, default=1024)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="stepwise-bench-runner-"))
    os.environ["STEPWISE_HOME"] = str(work / "home")
    app = QApplication.instance() or QApplication([])
    rows = [bench_idle(app)]
    rows += bench_scripted(app, max(args.steps, 40), work, args.preview_px)
    if not args.scripted_only:
        engine = Path(args.engine) if args.engine else build_engine()
        rows += bench_engine(app, engine, args.steps, work)

    header = (
        "stream",
        "wall time",
        "note",
        "stall while streaming",
        "stall incl. start",
        "previews saved/shown",
    )
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print()
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))
    stalls = [float(r[3].split()[0]) for r in rows[1:] if r[3]]
    worst = max(stalls) if stalls else 0.0
    print()
    print(
        f"worst event-loop stall while previews stream {worst:.1f} ms, "
        f"target ≤ {STALL_TARGET_MS:.0f} ms: ratio {worst / STALL_TARGET_MS:.2f} "
        f"({'ok' if worst <= STALL_TARGET_MS else 'OVER'})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
