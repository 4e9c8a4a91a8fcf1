"""The parsers of `python -m app queue …` (the handlers are app/cli/queue_commands.py)."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def add_queue(
    sub: argparse._SubParsersAction, add_job_flags: Callable[[argparse.ArgumentParser], None]
) -> None:
    """`queue` and its actions; `add_job_flags`: the flags of `run` (cli/parser.py), which
    `queue add` takes too."""
    from app.pipeline.work_policy import DEFAULT_IDLE_MINUTES

    q = sub.add_parser(
        "queue",
        help="line up jobs and variations; run them unattended, crash-safe",
        description="The queue is kept in the data folder. A worker (`queue run`) runs its "
        "jobs one after another; after a kill it resumes the job in hand from its last "
        "checkpoint, and two workers never run the same job.",
    )
    qs = q.add_subparsers(dest="queue_command", metavar="ACTION")

    p = qs.add_parser(
        "add",
        help="add a job (the flags of `run`) or N variations of it",
        description="Takes the flags of `run`. --variations N adds N jobs with seeds --seed, "
        "--seed+1, … (or N random seeds with --random-seeds); --prompts FILE adds the jobs "
        "once per line of FILE. Every seed is drawn once and recorded in the job.",
    )
    add_job_flags(p)
    v = p.add_argument_group("variations")
    v.add_argument(
        "--variations", type=int, default=1, metavar="N", help="jobs per prompt (default: 1)"
    )
    v.add_argument(
        "--random-seeds",
        action="store_true",
        help="draw each variation's seed at random (default: consecutive from --seed)",
    )
    v.add_argument(
        "--prompts", metavar="FILE", help="a text file: one job (or N variations) per line"
    )
    p.add_argument("--engine", metavar="PATH", help="the sd-stage binary to check the job with")
    p.add_argument("--json", action="store_true", help="print the added jobs' ids as JSON")
    p.set_defaults(handler="queue_add")

    p = qs.add_parser("list", help="the jobs, their states and run folders")
    p.add_argument("--json", action="store_true", help="print one JSON object per job")
    p.set_defaults(handler="queue_list")

    p = qs.add_parser(
        "run",
        help="run the queue's jobs one after another (a headless worker)",
        description="Runs every job not done yet, resuming an interrupted one from its last "
        "checkpoint; exits when the queue is empty or paused. Ctrl+C suspends the job in "
        "hand after its current step. --when idle runs only while nobody uses the computer "
        "and suspends the job in hand (the GPU freed within seconds) when someone comes back; "
        "--when 01:00-07:00 only in those hours. Without --when: the policy of the Settings.",
    )
    p.add_argument("--engine", metavar="PATH", help="the sd-stage binary to use")
    p.add_argument(
        "--when",
        metavar="POLICY",
        help="always | idle | HH:MM-HH:MM (default: the Settings' policy, else always)",
    )
    p.add_argument(
        "--idle-minutes",
        type=int,
        metavar="N",
        help="with --when idle: minutes without keyboard or mouse input "
        f"(default: the Settings', else {DEFAULT_IDLE_MINUTES})",
    )
    p.add_argument("--not-on-battery", action="store_true", help="never run while on battery power")
    p.set_defaults(handler="queue_run")

    p = qs.add_parser("remove", help="take a job out of the queue (its run folder stays)")
    p.add_argument("job_id", metavar="ID", nargs="?")
    p.add_argument(
        "--refused", action="store_true", help="remove every job the queue refuses to read"
    )
    p.set_defaults(handler="queue_remove")

    p = qs.add_parser("retry", help="queue a failed job again (after fixing what it said)")
    p.add_argument("job_id", metavar="ID")
    p.set_defaults(handler="queue_retry")

    p = qs.add_parser("move", help="move a job to another place in the queue")
    p.add_argument("job_id", metavar="ID")
    p.add_argument("position", type=int, metavar="POSITION", help="1 = first")
    p.set_defaults(handler="queue_move")

    p = qs.add_parser("pause", help="stop after the job in hand; start no other")
    p.set_defaults(handler="queue_pause")

    p = qs.add_parser("resume", help="let workers take jobs again")
    p.set_defaults(handler="queue_resume")
