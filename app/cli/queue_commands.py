"""`python -m app queue add | list | run | remove | move | pause | resume` (parsers in
app/cli/queue_parser.py; the store is app/pipeline/queue/jobs.py, the worker queue/worker.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.cli.commands import job_spec, pipeline_of
from app.cli.execute import ctrl_c_suspends, print_event
from app.cli.exits import Exit
from app.cli.work_texts import policy_text, waiting_text
from app.core.errors import InputError, StepwiseError, error_text
from app.core.paths import app_paths
from app.core.program import typed
from app.core.settings import load_settings
from app.pipeline import (
    BLOCKED,
    CANCELLED,
    NO_ROOM,
    PAUSED,
    RESULT_FILE,
    SUSPENDED,
    JobQueue,
    ListedView,
    QueuedJob,
    Sources,
    WorkGate,
    check_new_jobs,
    prompt_lines,
    read_status,
    run_queue,
    variations,
)
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.work_policy import IDLE, Verdict, WorkPolicy, policy_from_settings, policy_of

NO_IDLE_MESSAGE = "This computer cannot tell how long it has been idle"
NO_IDLE_FIX = (
    "On Linux, run a desktop session that sets logind's idle hint, or install xprintidle "
    "(X11); or use --when HH:MM-HH:MM."
)


def _queue() -> JobQueue:
    return JobQueue(app_paths())


def say_notices(queue: JobQueue) -> None:
    """Every queue command says what the store kept aside or refused (until the user acts)."""
    for notice in queue.notices():
        print(f"warning: {error_text(notice)}", file=sys.stderr)


def cmd_add(args: argparse.Namespace) -> int:
    pipeline = pipeline_of(args)
    spec = job_spec(args, pipeline)
    try:
        catalog = pipeline.catalog()
        devices: list[str] | None = [d.name for d in pipeline.devices()]
    except StepwiseError:  # no engine now: the worker checks again and says so
        catalog, devices = None, None
    prompts = prompt_lines(args.prompts) if args.prompts else None
    queue = _queue()
    # Variations skip the seeds jobs of the same settings already have (one indexed query).
    wanted = [spec.prompt] if prompts is None else [p for _, p in prompts]
    used = queue.seeds_in_use(spec, wanted) if args.variations > 1 else set()
    specs, tags = variations(spec, args.variations, args.random_seeds, prompts, used)
    # What `run` checks before any stage, the pictures included, once per distinct job: a bad
    # value is said now, not at 3 in the morning (issue 29, defects 3, 4, 11).
    check_new_jobs(specs, catalog, devices)
    photo = Path(spec.image).name if spec.image else None  # the run's title, as `run` has it
    added = queue.add(specs, tags, photo_name=photo)
    say_notices(queue)
    if args.json:
        print(json.dumps([_job_json(job) for job in added], indent=1, ensure_ascii=False))
        return Exit.OK
    for job in added:
        print(f"queued {job.id}: seed {job.spec.seed}, {job.spec.prompt!r}")
    print(f"{len(added)} job(s) added; run them with: {typed('queue', 'run')}")
    return Exit.OK


def _job_json(job: QueuedJob) -> dict[str, Any]:
    return {
        "id": job.id,
        "prompt": job.spec.prompt,
        "seed": job.spec.seed,
        "variation": None if job.variation is None else job.variation.to_json(),
    }


def view_json(view: ListedView, position: int) -> dict[str, Any]:
    job = view.job
    out: dict[str, Any] = {
        "id": job.id,
        "prompt": job.prompt,
        "seed": job.seed,
        "variation": None if job.variation is None else job.variation.to_json(),
    }
    result = None
    if view.state == "done" and view.run_dir is not None:
        result = str(view.run_dir / RESULT_FILE)
    out.update(
        position=position,
        state=view.state,
        created=job.created,
        steps=view.steps if view.steps is not None else job.steps,
        last_completed_step=view.last_completed_step,
        accepted_step=view.accepted_step,
        run_dir=None if view.run_dir is None else str(view.run_dir),
        result=result,
        failure=None if job.outcome is None else job.outcome.failure,
        inputs={"image": job.image, "mask": job.mask, "refs": list(job.refs)},
    )
    return out


def cmd_list(args: argparse.Namespace) -> int:
    queue = _queue()
    paused, views = queue.listing()
    say_notices(queue)
    if args.json:  # one job a line (the C encoder: an indented dump of 100,000 jobs took 10 s)
        lines = ",\n".join(json.dumps(view_json(v, n)) for n, v in enumerate(views, 1))
        print(f"[\n{lines}\n]" if lines else "[]")
        return Exit.OK
    print(f"queue: {len(views)} job(s){', paused' if paused else ''}")
    _print_policy()
    for n, v in enumerate(views, 1):
        steps = v.steps if v.steps is not None else v.job.steps
        step = f"step {v.last_completed_step}/{steps}"
        if v.accepted_step is not None:
            step = f"accepted at step {v.accepted_step}/{steps}"
        print(
            f"{n:>3}. {v.job.id}  {v.state:<11} {step:<22} seed {v.job.seed:<10} {v.job.prompt!r}"
        )
        if v.run_dir is not None:
            print(f"      {v.run_dir}")
        if v.job.outcome is not None and v.job.outcome.failure:
            print(f"      failed: {v.job.outcome.failure}")
    return Exit.OK


def _settings_policy() -> WorkPolicy:
    return policy_from_settings(load_settings(app_paths().settings_file).work)


def _print_policy() -> None:
    """The live worker's policy and why it waits, else the policy a worker would take."""
    status = read_status(_queue().dir)
    if status is None:
        print(f"policy: {policy_text(_settings_policy().to_json())} (no worker running)")
        return
    print(f"policy: {policy_text(status.policy)}; worker: {waiting_text(status.waiting)}")


def work_gate(args: argparse.Namespace, queue: JobQueue) -> WorkGate:
    """`--when`, `--idle-minutes`, `--not-on-battery` over the Settings' policy."""
    base = _settings_policy()
    policy = policy_of(
        args.when or base.mode,
        base.idle_minutes if args.idle_minutes is None else args.idle_minutes,
        base.hours,
        args.not_on_battery or base.not_on_battery,
    )
    sources = Sources.system() if policy.mode == IDLE else Sources()
    if policy.mode == IDLE and sources.idle is None:
        raise InputError(NO_IDLE_MESSAGE, fix=NO_IDLE_FIX)

    def say(now: Verdict) -> None:
        print(f"queue worker ({policy_text(policy.to_json())}): {waiting_text(now)}", flush=True)

    return WorkGate(policy, sources, on_state=say, status_dir=queue.dir)


def cmd_run(args: argparse.Namespace) -> int:
    pipeline = pipeline_of(args)
    queue = _queue()
    gate = work_gate(args, queue)
    control = RunControl()
    out = sys.stdout
    codes: dict[str, Exit | None] = {}

    def on_event(job: QueuedJob, run_dir: Path | None, event: ev.Event) -> None:
        if job.id not in codes:
            codes[job.id] = None
            print(f"job {job.id}: seed {job.spec.seed}, {job.spec.prompt!r}", flush=True)
            if run_dir is not None:
                print(f"run folder: {run_dir}", flush=True)
        code = print_event(event, run_dir or Path("."), out)
        if code is not None:
            codes[job.id] = code
            if code == Exit.OK:
                print(f"job {job.id} finished: {run_dir}", flush=True)

    try:
        with ctrl_c_suspends(control):
            report = run_queue(pipeline, queue, control, on_event, gate=gate)
    except KeyboardInterrupt:
        say_notices(queue)
        print(f"stopped; `{typed('queue', 'run')}` resumes the job", file=sys.stderr)
        return Exit.CANCELLED
    finally:
        gate.close()
    say_notices(queue)
    done, failed = len(report.finished), len(report.failed)
    left = len(report.interrupted)
    summary = f"queue worker: {done} finished, {failed} failed"
    if left:  # an engine that crashed or hung: the job is interrupted, not failed
        summary += f", {left} interrupted (the next `{typed('queue', 'run')}` resumes them)"
    print(summary, flush=True)
    if report.reason == PAUSED:
        print(f"the queue is paused; continue with: {typed('queue', 'resume')}")
    if report.reason == SUSPENDED:
        print(f"suspended; continue with: {typed('queue', 'run')}")
        return Exit.SUSPENDED
    if report.reason == CANCELLED:
        return Exit.CANCELLED
    if report.reason == BLOCKED:
        print(
            "a folder the queue works in is blocked (said above): the queue stopped and its "
            f"jobs stay queued; move what is there away, then: {typed('queue', 'run')}",
            file=sys.stderr,
        )
        return Exit.FAILED
    if report.reason == NO_ROOM:
        print(
            "the disk is full: the queue stopped and its jobs stay queued; free some space, "
            f"then: {typed('queue', 'run')}",
            file=sys.stderr,
        )
        return Exit.FAILED
    return Exit.FAILED if failed or left else Exit.OK


def cmd_remove(args: argparse.Namespace) -> int:
    queue = _queue()
    if args.refused:
        count = queue.remove_refused()
        print(f"removed {count} refused job(s) from the queue")
        say_notices(queue)
        return Exit.OK
    if not args.job_id:
        print("error: give the job's ID (`queue list` shows them), or --refused", file=sys.stderr)
        return Exit.USAGE
    job = queue.remove(args.job_id)
    print(f"removed {job.id} from the queue")
    say_notices(queue)
    return Exit.OK


def cmd_retry(args: argparse.Namespace) -> int:
    queue = _queue()
    job = queue.retry(args.job_id)
    print(f"queued {job.id} again; run it with: {typed('queue', 'run')}")
    say_notices(queue)
    return Exit.OK


def cmd_move(args: argparse.Namespace) -> int:
    queue = _queue()
    place = queue.move(args.job_id, args.position - 1)
    print(f"moved {args.job_id} to place {place + 1}")
    say_notices(queue)
    return Exit.OK


def cmd_pause(args: argparse.Namespace) -> int:
    queue = _queue()
    queue.set_paused(True)
    print("paused: a worker stops after its current job")
    say_notices(queue)
    return Exit.OK


def cmd_resume(args: argparse.Namespace) -> int:
    queue = _queue()
    queue.set_paused(False)
    print(f"resumed: `{typed('queue', 'run')}` runs the jobs")
    say_notices(queue)
    return Exit.OK
