"""CLI commands over the pipeline: run, resume, status, selftest.

Exit codes: 0 done, 1 failed, 6 suspended (resume with `resume DIR`), 7 cancelled.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from app.core.errors import StepwiseError
from app.core.paths import app_paths
from app.core.settings import load_settings

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_SUSPENDED = 6
EXIT_CANCELLED = 7


def add_parsers(sub: argparse._SubParsersAction) -> None:
    _add_run(sub)
    p = sub.add_parser("resume", help="continue a suspended, cancelled or crashed run",
                       description="Runs what is left of the run in DIR, from its last valid "
                       "checkpoint; finished stages are not repeated.")
    p.add_argument("run_dir", metavar="DIR")
    p.add_argument("--engine", metavar="PATH", help="the sd-stage binary to use")
    p.set_defaults(handler="resume")

    p = sub.add_parser("status", help="show the stages and steps of a run",
                       description="Prints each stage's state, whether it came from the cache, "
                       "its seconds, the last completed step and the result.")
    p.add_argument("run_dir", metavar="DIR")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler="status")

    p = sub.add_parser("selftest", help="generate tiny models and run every stage",
                       description="Generates tiny random-weight klein models, runs an "
                       "inpainting job through every stage and reports the device each stage "
                       "really ran on and the seconds per step.")
    p.add_argument("--device", default="cpu", help="device for every stage (cpu, vulkan0, ...)")
    p.add_argument("--engine", metavar="PATH", help="the sd-stage binary to use")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(handler="selftest")


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="inpaint or generate an image, one engine stage at a time",
        description="Takes sd-cli's flags. Writes a run folder (run.json, stage outputs, "
        "checkpoints, logs, result.png); Ctrl+C suspends after the current step.")
    m = p.add_argument_group("models (default: the ones chosen in Settings)")
    m.add_argument("--diffusion-model", metavar="PATH")
    m.add_argument("--llm", metavar="PATH")
    m.add_argument("--vae", metavar="PATH")
    m.add_argument("--lora-model-dir", metavar="DIR")
    g = p.add_argument_group("job")
    g.add_argument("-p", "--prompt", required=True)
    g.add_argument("-n", "--negative-prompt", default="")
    g.add_argument("-i", "--init-img", metavar="IMAGE", help="image to inpaint (none = txt2img)")
    g.add_argument("--mask", metavar="MASK", help="white = repaint")
    g.add_argument("-r", "--ref-image", action="append", default=[], metavar="IMAGE")
    g.add_argument("-W", "--width", type=int, default=512)
    g.add_argument("-H", "--height", type=int, default=512)
    g.add_argument("--steps", type=int, default=4)
    g.add_argument("-s", "--seed", type=int, default=42)
    g.add_argument("--strength", type=float, default=1.0)
    g.add_argument("--cfg-scale", type=float, default=1.0)
    g.add_argument("--sampling-method", default="euler")
    g.add_argument("--scheduler", default="simple")
    g.add_argument("--preview", choices=("none", "proj", "vae"), default="none")
    d = p.add_argument_group("devices")
    d.add_argument("--device", help="device for every stage (cpu, vulkan0, ...)")
    d.add_argument("--llm-device")
    d.add_argument("--diffusion-device")
    d.add_argument("--vae-device")
    d.add_argument("-t", "--threads", type=int, default=0)
    d.add_argument("--vae-tiling", action="store_true")
    d.add_argument("--diffusion-fa", action="store_true", default=None)
    d.add_argument("--backend", metavar="SPEC",
                   help="per-module devices, e.g. te=cpu,diffusion=vulkan1,vae=vulkan1")
    d.add_argument("--clip-on-cpu", action="store_true", help="run the text encoder on the CPU")
    d.add_argument("--vae-on-cpu", action="store_true", help="run the VAE on the CPU")
    s = p.add_argument_group("accepted from sd-cli command lines, not needed here")
    s.add_argument("--guidance", metavar="X", help="does nothing for klein")
    s.add_argument("--params-backend", metavar="DEV", help="not needed: one model per stage")
    s.add_argument("--max-vram", metavar="GIB", help="not needed: one model per stage")
    s.add_argument("--mmap", action="store_true", help="always on")
    o = p.add_argument_group("output")
    o.add_argument("--run-dir", metavar="DIR", help="run folder (default: a new one in the "
                   "data folder)")
    o.add_argument("--engine", metavar="PATH", help="the sd-stage binary to use")
    o.add_argument("-o", "--output", metavar="PNG", help="also copy the result here")
    p.set_defaults(handler="run")


# ---------------------------------------------------------------------------------- run
def _spec_from_args(args: argparse.Namespace) -> Any:
    from app.pipeline.spec import DeviceChoice, JobSpec, ModelFiles

    paths = app_paths()
    settings = load_settings(paths.settings_file)
    models = ModelFiles(
        diffusion=args.diffusion_model or settings.models.diffusion_model,
        llm=args.llm or settings.models.llm,
        vae=args.vae or settings.models.vae,
        lora_dir=args.lora_model_dir or settings.models.lora_dir)
    missing = [flag for flag, value in (("--diffusion-model", models.diffusion),
                                        ("--llm", models.llm), ("--vae", models.vae)) if not value]
    if missing:
        raise StepwiseError(f"No model given for {', '.join(missing)}.",
                            fix="Pass the flag or choose the file in Settings.")
    base = (DeviceChoice(llm=settings.devices.llm, diffusion=settings.devices.diffusion,
                         vae=settings.devices.vae)
            if paths.settings_file.exists() else DeviceChoice())
    every = args.device
    backend = _backend_devices(args.backend) if args.backend else {}
    if args.clip_on_cpu:
        backend["llm"] = "cpu"
    if args.vae_on_cpu:
        backend["vae"] = "cpu"
    devices = DeviceChoice(
        llm=args.llm_device or backend.get("llm") or every or base.llm,
        diffusion=args.diffusion_device or backend.get("diffusion") or every or base.diffusion,
        vae=args.vae_device or backend.get("vae") or every or base.vae,
        threads=args.threads,
        flash_attention=True if args.diffusion_fa is None else args.diffusion_fa,
        vae_tiling=args.vae_tiling)
    return JobSpec(
        models=models, prompt=args.prompt, negative_prompt=args.negative_prompt,
        image=args.init_img, mask=args.mask, refs=tuple(args.ref_image),
        width=args.width, height=args.height, steps=args.steps, seed=args.seed,
        strength=args.strength, cfg_scale=args.cfg_scale, sampler=args.sampling_method,
        scheduler=args.scheduler, preview=args.preview, devices=devices)


def _backend_devices(text: str) -> dict[str, str]:
    from app.pipeline.sdcli_import import import_sd_cli_command

    devices = import_sd_cli_command(f"--backend {text}")[0]["devices"]
    return {k: devices[k] for k in ("llm", "diffusion", "vae")}


def _ignored_flag_notes(args: argparse.Namespace) -> list[str]:
    notes = []
    if args.guidance is not None:
        notes.append(f"--guidance {args.guidance} does nothing for klein; ignored.")
    for flag, value in (("--params-backend", args.params_backend),
                        ("--max-vram", args.max_vram)):
        if value is not None:
            notes.append(f"{flag} {value}: each stage loads only its own model; ignored.")
    return notes


def cmd_run(args: argparse.Namespace) -> int:
    from app.pipeline.runner import Pipeline
    from app.pipeline.spec import klein_warnings

    spec = _spec_from_args(args)
    for note in _ignored_flag_notes(args) + klein_warnings(spec):
        print(f"note: {note}")
    pipeline = Pipeline(app_paths(), Path(args.engine) if args.engine else None)
    run = pipeline.create_run(spec, Path(args.run_dir) if args.run_dir else None)
    print(f"run folder: {run.dir}", flush=True)
    code = _execute(pipeline, run)
    if code == EXIT_OK and args.output and run.result is not None:
        import shutil

        shutil.copyfile(run.result, args.output)
        print(f"copied to {args.output}")
    return code


def cmd_resume(args: argparse.Namespace) -> int:
    from app.pipeline.runner import Pipeline

    pipeline = Pipeline(app_paths(), Path(args.engine) if args.engine else None)
    run = pipeline.open_run(Path(args.run_dir))
    if run.finished and run.result is not None and run.result.exists():
        print(f"already finished: {run.result}")
        return EXIT_OK
    print(f"resuming {run.dir} (last completed step {run.last_completed_step}"
          f"{f' of {run.steps}' if run.steps else ''})", flush=True)
    return _execute(pipeline, run)


@contextmanager
def _ctrl_c_suspends(control: Any) -> Iterator[None]:
    """First Ctrl+C: suspend after the current step; second: stop at once."""
    presses = 0

    def handler(signum: int, frame: Any) -> None:
        nonlocal presses
        presses += 1
        if presses == 1:
            print("\nsuspending after the current step… (Ctrl+C again to stop now)",
                  file=sys.stderr, flush=True)
            control.suspend()
        else:
            control.cancel()
            raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _execute(pipeline: Any, run: Any, out: TextIO | None = None,
             report: dict[str, Any] | None = None) -> int:
    from app.pipeline import events as ev
    from app.pipeline.control import RunControl

    out = out or sys.stdout
    control = RunControl()
    code = EXIT_FAILED
    with _ctrl_c_suspends(control):
        events = pipeline.execute(run, control)
        try:
            for event in events:
                if report is not None:
                    _collect(report, event)
                match event:
                    case ev.StageStarted(stage=stage):
                        print(f"[{stage}] started", file=out, flush=True)
                    case ev.StageFinished(stage=stage, seconds=seconds, cached=cached,
                                          device=device):
                        how = "cached" if cached else f"done in {seconds:.2f} s"
                        on = f" on {device}" if device and not cached else ""
                        print(f"[{stage}] {how}{on}", file=out, flush=True)
                    case ev.StepProgressed(step=step, steps=steps, seconds_per_step=sps,
                                           eta_s=eta):
                        print(f"[diffuse] step {step}/{steps}  {sps:.2f} s/step  "
                              f"eta {eta:.0f} s", file=out, flush=True)
                    case ev.CheckpointSaved(step=step):
                        print(f"[diffuse] checkpoint {step}", file=out, flush=True)
                    case ev.LogLine(stage=stage, text=text):
                        print(f"[{stage}] {text}", file=out, flush=True)
                    case ev.RunFinished(result_path=path):
                        print(f"result: {path}", file=out, flush=True)
                        code = EXIT_OK
                    case ev.RunFailed(stage=stage, message=message, log_path=log_path):
                        print(f"failed in {stage}: {message}", file=sys.stderr)
                        if log_path:
                            print(f"engine log: {log_path}", file=sys.stderr)
                        code = EXIT_FAILED
                    case ev.RunSuspended(step=step):
                        print(f"suspended after step {step}; continue with: "
                              f"python -m app resume {run.dir}", file=out, flush=True)
                        code = EXIT_SUSPENDED
                    case ev.RunCancelled(step=step):
                        print(f"cancelled after step {step}", file=out, flush=True)
                        code = EXIT_CANCELLED
        except KeyboardInterrupt:
            print("stopped", file=sys.stderr)
            code = EXIT_CANCELLED
        finally:
            events.close()  # stops an engine process still running
    return code


# ---------------------------------------------------------------------------------- status
def cmd_status(args: argparse.Namespace) -> int:
    from app.pipeline.run_dir import open_run

    run = open_run(Path(args.run_dir))
    status = run.to_status()
    if args.json:
        print(json.dumps(status, indent=1, ensure_ascii=False))
        return EXIT_OK
    print(f"run {run.id}: {run.spec.prompt!r}")
    for stage in status["stages"]:
        seconds = "" if stage["seconds"] is None else f"{stage['seconds']:.2f} s"
        cached = "cached" if stage["cached"] else ""
        print(f"  {stage['name']:<11} {stage['state']:<8} {cached:<6} {seconds:>9} "
              f"{stage['device'] or ''}")
    steps = status["steps"]
    print(f"  steps: {status['last_completed_step']} of {steps if steps else '?'}")
    print(f"  result: {status['result'] or '(none yet)'}")
    return EXIT_OK


# ---------------------------------------------------------------------------------- selftest
def _collect(report: dict[str, Any], event: Any) -> None:
    from app.pipeline import events as ev

    match event:
        case ev.DeviceReported(stage=stage, device=device):
            report.setdefault("devices", {})[stage] = device
        case ev.StageFinished(stage=stage, seconds=seconds, cached=cached):
            report.setdefault("seconds", {})[stage] = round(seconds, 3)
            if cached:
                report.setdefault("cached", []).append(stage)
        case ev.StepProgressed(seconds_per_step=sps, steps=steps):
            report["seconds_per_step"] = round(sps, 4)
            report["steps"] = steps
        case ev.RunFinished(result_path=path):
            report["result"] = str(path)
        case ev.RunFailed(stage=stage, message=message, log_path=log_path):
            report["failed"] = {"stage": stage, "message": message,
                                "log": str(log_path) if log_path else None}
        case _:
            pass


def _selftest_images(folder: Path) -> tuple[Path, Path]:
    import numpy as np
    from PIL import Image

    size = 128
    y, x = np.mgrid[0:size, 0:size]
    image = np.stack([x * 2, y * 2, (x + y)], axis=-1).astype(np.uint8)
    mask = np.zeros((size, size), np.uint8)
    mask[32:96, 32:96] = 255
    folder.mkdir(parents=True, exist_ok=True)
    Image.fromarray(image).save(folder / "image.png")
    Image.fromarray(mask).save(folder / "mask.png")
    return folder / "image.png", folder / "mask.png"


def cmd_selftest(args: argparse.Namespace) -> int:
    from app.engine.tiny_models import generate_models
    from app.pipeline.cache import StageCache
    from app.pipeline.runner import Pipeline
    from app.pipeline.spec import DeviceChoice, JobSpec, ModelFiles

    paths = app_paths()
    print("generating the tiny models…", file=sys.stderr if args.json else sys.stdout, flush=True)
    models = generate_models(paths.cache_dir / "selftest-models")
    pipeline = Pipeline(paths, Path(args.engine) if args.engine else None)
    work = Path(tempfile.mkdtemp(prefix="selftest-", dir=_mk(paths.cache_dir)))
    # A cache of its own, so every stage really runs.
    pipeline.cache = StageCache(work / "cache", 64 * 1024 * 1024)
    image, mask = _selftest_images(work / "inputs")
    dev = args.device
    spec = JobSpec(models=ModelFiles(str(models.diffusion), str(models.llm), str(models.vae)),
                   prompt="a small red house", image=str(image), mask=str(mask), steps=4,
                   preview="none", devices=DeviceChoice(llm=dev, diffusion=dev, vae=dev))
    run = pipeline.create_run(spec, work / "run")
    report: dict[str, Any] = {"requested_device": dev, "run_dir": str(run.dir)}
    started = time.monotonic()
    code = _execute(pipeline, run, out=sys.stderr if args.json else sys.stdout, report=report)
    report["seconds_total"] = round(time.monotonic() - started, 2)
    report["ok"] = code == EXIT_OK
    if report["ok"]:
        import shutil

        shutil.rmtree(work, ignore_errors=True)  # a failed run stays for its logs
        report["run_dir"] = None
        report.pop("result", None)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print("\nselftest " + ("passed" if report["ok"] else "FAILED"))
        for stage, device in report.get("devices", {}).items():
            print(f"  {stage:<11} ran on {device}")
        if "seconds_per_step" in report:
            print(f"  diffuse: {report['seconds_per_step']:.3f} s/step "
                  f"({report.get('steps')} steps)")
        mismatched = [s for s, d in report.get("devices", {}).items()
                      if not _same_device(d, dev)]
        if mismatched:
            print(f"  note: asked for {dev}, but {', '.join(mismatched)} ran elsewhere")
    return code


def _same_device(reported: str, requested: str) -> bool:
    return reported.lower().replace(" ", "").startswith(requested.lower())


def _mk(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder
