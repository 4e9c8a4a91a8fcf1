"""`python -m app measure [--quick]`: measure this computer (app/pipeline/measure/) and write
one report, Markdown + JSON, into the data folder's measure/; `--apply` makes the settings it
chose this computer's defaults (the remembered job) and says what changed."""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from app.cli.exits import Exit
from app.core.paths import app_paths
from app.core.settings import load_settings, save_settings
from app.pipeline import Pipeline
from app.pipeline.measure.probe import MeasureStep
from app.pipeline.measure.report import apply_choice
from app.pipeline.measure.session import SHAPES, make_setup, measure, parse_sizes


def add_measure(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "measure",
        help="measure this computer: s/step, memory, the largest size; a report to share",
        description="Runs every stage on every device the engine lists, at your sizes, with "
        "your model files (else shape-only models of the real sizes): s/step with flash "
        "attention off and on, planned vs measured memory, the text encoder on the GPU vs the "
        "CPU, the VAE tiled vs untiled, the largest size that fits, and the settings it would "
        "choose. Writes a Markdown report and JSON beside it. Ctrl+C stops it; no network.",
    )
    p.add_argument("--quick", action="store_true", help="the tiny test models at tiny sizes")
    p.add_argument("--engine", type=Path, metavar="PATH", help="the sd-stage binary to measure")
    p.add_argument("--sizes", metavar="WxH,...", help="sizes (default: the remembered job's)")
    p.add_argument("--devices", metavar="DEV,...", help="only these devices (default: all)")
    p.add_argument(
        "--shape", choices=SHAPES, default="9b", help="shape-only models when none are chosen"
    )
    p.add_argument(
        "--apply",
        action="store_true",
        help="make the settings it chose this computer's defaults (and say what changed)",
    )
    p.set_defaults(handler="measure")


def cmd_measure(args: argparse.Namespace) -> int:
    paths = app_paths()
    settings = load_settings(paths.settings_file)
    explicit = args.engine or (Path(settings.engine_path) if settings.engine_path else None)
    engine = Pipeline(paths, explicit).engine_binary()
    setup = make_setup(
        paths, settings, engine, quick=args.quick, shape=args.shape,
        sizes=parse_sizes(args.sizes) if args.sizes else None,
        devices=tuple(args.devices.lower().split(",")) if args.devices else None,
    )  # fmt: skip
    print(f"measuring with {setup.models_note} at "
          f"{', '.join(f'{w}x{h}' for w, h in setup.sizes)} on {engine}", flush=True)  # fmt: skip

    def progress(done: int, total: int, what: MeasureStep, eta: float | None) -> None:
        left = f", about {eta:.0f} s left" if eta is not None else ""
        print(f"[{done + 1}/{total}] {what}{left}", file=sys.stderr, flush=True)

    cancel = threading.Event()
    try:
        report, md, js = _run(setup, paths, progress, cancel)
    except KeyboardInterrupt:  # a second Ctrl+C while the stage in hand stops
        return Exit.CANCELLED
    print(md.read_text(encoding="utf-8"))
    print(f"report: {md}\n        {js}")
    if report["cancelled"]:
        print("cancelled: the report is partial", file=sys.stderr)
        return Exit.CANCELLED
    if args.apply:
        changes = apply_choice(settings, report["choice"])
        save_settings(paths.settings_file, settings)
        for c in changes:
            print(f"changed {c.name}: {c.old} -> {c.new}")
        if not changes:
            print("nothing changed: the defaults are already what it chose")
    return Exit.OK


def _run(setup, paths, progress, cancel):
    import signal

    def on_sigint(_signum: int, _frame: object) -> None:
        print("\nstopping the measurement…", file=sys.stderr, flush=True)
        cancel.set()

    try:
        previous = signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread
        return measure(setup, paths, progress, cancel)
    try:
        return measure(setup, paths, progress, cancel)
    finally:
        signal.signal(signal.SIGINT, previous)
