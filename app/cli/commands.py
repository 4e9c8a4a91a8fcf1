"""The pipeline commands: run, resume, status, selftest (parsers in app/cli/parser.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.cli.execute import execute, print_event
from app.cli.exits import Exit, exit_for
from app.cli.run_flags import values_from_args
from app.cli.texts import error_json, error_line, failure_text, note_text
from app.core.errors import InputError, StepwiseError
from app.core.paths import app_paths
from app.core.settings import load_settings
from app.pipeline import copy_atomic, status_json
from app.pipeline.api import PipelineAPI
from app.pipeline.job.advice import job_notes
from app.pipeline.job.preflight import check_output_file
from app.pipeline.job.spec import JobSpec, spec_from_values


def pipeline_of(args: argparse.Namespace) -> PipelineAPI:
    """The pipeline a command runs on (`--engine` when given)."""
    from app.pipeline import Pipeline

    return Pipeline(app_paths(), Path(args.engine) if getattr(args, "engine", None) else None)


def job_spec(args: argparse.Namespace, pipeline: PipelineAPI) -> JobSpec:
    """The job the flags of `run` (and `queue add`) describe; its notes are printed."""
    settings = load_settings(app_paths().settings_file)
    values, notes = values_from_args(args, settings.job)
    spec = spec_from_values(values, image=args.init_img, mask=args.mask, refs=tuple(args.ref_image))
    chosen = getattr(args, "preset", None)
    if chosen and chosen != "free" and spec.image is None:  # `run` and `queue add` alike
        raise InputError(
            "--preset {preset} edits a picture, and none is given.",
            fix="Give the picture with -i (and the area to change with --mask).",
            values={"preset": chosen},
        )
    if getattr(args, "output", None):
        check_output_file(args.output)  # before the run, not after it
    try:
        resumable = pipeline.catalog().resumable
    except StepwiseError:
        resumable = None  # no engine to ask: the run below says so
    if resumable is not None:
        notes += job_notes(spec, resumable)
    for note in notes:
        print(f"note: {note_text(note)}")
    return spec


def cmd_run(args: argparse.Namespace) -> int:
    pipeline = pipeline_of(args)
    spec = job_spec(args, pipeline)
    if not args.force:
        from app.cli.fit_check import refusal

        try:
            engine = pipeline.engine_binary()
        except StepwiseError:
            engine = None  # the run below says what is missing
        refused = None if engine is None else refusal(pipeline, spec)
        if refused is not None:
            print(refused, file=sys.stderr)
            return Exit.DOES_NOT_FIT
    folder = Path(args.run_dir) if args.run_dir else None
    photo = Path(spec.image).name if spec.image else None  # the user's file: its name only
    run = pipeline.create_run(spec, folder, photo_name=photo)
    print(f"run folder: {run.dir}", flush=True)
    if spec.seed < 0:  # drawn by create_run and recorded: said, so the picture can be made again
        print(f"seed: {run.spec.seed} (drawn at random; --seed {run.spec.seed} repeats it)")
    code = execute(pipeline, run.dir)
    if code == Exit.OK and args.output:
        result = pipeline.snapshot(run.dir).result
        if result is not None:
            try:
                copy_atomic(result, Path(args.output))  # whole, or the old file stays
            except StepwiseError as exc:  # after the render: a failure, not a bad command line
                print(error_line(exc), file=sys.stderr)
                return Exit.FAILED
            print(f"copied to {args.output}")
    return code


def cmd_resume(args: argparse.Namespace) -> int:
    pipeline = pipeline_of(args)
    if getattr(args, "start_over", False):
        pipeline.start_over(Path(args.run_dir))
        print("diffuse starts over: its old checkpoints are deleted when it runs")
    run = pipeline.snapshot(Path(args.run_dir))
    step = getattr(args, "accept_step", None)
    if step is not None:
        of = f" of {run.steps}" if run.steps else ""
        print(f"accepting {run.dir} at step {step}{of}", flush=True)
        run_dir = run.dir
        return execute(
            pipeline, run_dir, events_of=lambda c: pipeline.accept_step(run_dir, step, c)
        )
    if run.finished and run.result is not None and run.result.exists():
        print(f"already finished: {run.result}")
        return Exit.OK
    of = f" of {run.steps}" if run.steps else ""
    print(f"resuming {run.dir} (last completed step {run.last_completed_step}{of})", flush=True)
    return execute(pipeline, run.dir)


def cmd_status(args: argparse.Namespace) -> int:
    try:
        run = pipeline_of(args).snapshot(Path(args.run_dir))
    except StepwiseError as exc:
        if not args.json:
            raise  # main says it as a line
        code = exit_for(exc)
        said = {"error": error_json(exc), "exit_code": int(code)}
        print(json.dumps(said, indent=1, ensure_ascii=False))
        return code
    status = status_json(run)
    if args.json:
        print(json.dumps(status, indent=1, ensure_ascii=False))
        return Exit.OK
    print(f"run {run.id}: {run.spec.prompt!r}")
    for stage in run.stages:
        seconds = "" if stage.seconds is None else f"{stage.seconds:.2f} s"
        cached = "cached" if stage.cached else ""
        print(f"  {stage.name:<11} {stage.state:<8} {cached:<6} {seconds:>9} {stage.device or ''}")
    print(f"  steps: {run.last_completed_step} of {run.steps if run.steps else '?'}")
    if run.accepted_step is not None:
        print(f"  accepted early at step {run.accepted_step}")
    if run.model_input is not None:
        mi = run.model_input
        region = "the whole picture" if mi.region is None else f"region {list(mi.region)}"
        print(f"  engine input: {mi.width}×{mi.height} ({region})")
    if run.failure is not None:
        print(f"  failed in {run.failure.stage}: {failure_text(run.failure.kind)}")
    print(f"  result: {run.result or '(none yet)'}")
    return Exit.OK


def cmd_selftest(args: argparse.Namespace) -> int:
    from app.pipeline.selftest import selftest

    out = sys.stderr if args.json else sys.stdout
    print("generating the tiny models…", file=out, flush=True)
    report = selftest(
        app_paths(),
        args.device,
        Path(args.engine) if args.engine else None,
        on_event=lambda event: print_event(event, Path("."), out),
    )
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    else:
        print("\nselftest " + ("passed" if report.ok else "FAILED"))
        for stage, device in report.devices.items():
            print(f"  {stage:<11} ran on {device}")
        if report.seconds_per_step is not None:
            print(f"  diffuse: {report.seconds_per_step:.3f} s/step ({report.steps} steps)")
        mismatched = report.mismatched()
        if mismatched:
            print(f"  note: asked for {args.device}, but {', '.join(mismatched)} ran elsewhere")
        if report.run_dir is not None:
            print(f"  the run is kept for its logs: {report.run_dir}")
    return Exit.OK if report.ok else Exit.FAILED
