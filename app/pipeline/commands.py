"""CLI commands over the pipeline: run, resume, status, selftest (filled in by the pipeline)."""

from __future__ import annotations

import argparse


def add_parsers(sub: argparse._SubParsersAction) -> None:
    for name in ("run", "resume", "status", "selftest"):
        p = sub.add_parser(name, help=f"{name} (not available yet)")
        p.set_defaults(handler=name)


def _not_yet(args: argparse.Namespace) -> int:
    print(f"`{args.handler}` is not available in this build yet.")
    return 2


cmd_run = cmd_resume = cmd_status = cmd_selftest = _not_yet
