"""CLI commands over imaging: prepare and composite (filled in by imaging)."""

from __future__ import annotations

import argparse


def cmd_prepare(args: argparse.Namespace) -> int:
    print("`prepare` is not available in this build yet.")
    return 2


def cmd_composite(args: argparse.Namespace) -> int:
    print("`composite` is not available in this build yet.")
    return 2
