"""Headless commands over the same code the GUI uses: prepare, composite, run, resume, status,
selftest. `python -m app COMMAND --help` explains each."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence

from app.core.errors import StepwiseError
from app.core.logs import setup_logging
from app.core.paths import app_paths

log = logging.getLogger(__name__)

# Exit codes of the CLI itself (the engine's own codes are in native/PROTOCOL.md).
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_SUSPENDED = 6
EXIT_CANCELLED = 7

COMMANDS = ("prepare", "composite", "run", "resume", "status", "selftest")

Handler = Callable[[argparse.Namespace], int]


def _add_prepare(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "prepare", help="align an image and mask to 16 px, fill the masked area, export",
        description="Writes OUT/input.png, OUT/mask.png and OUT/prepare.json exactly as sd-cli "
        "and sd-stage expect them (mask: white = repaint, black = keep).")
    p.add_argument("image", help="the picture to inpaint (PNG, JPEG, WebP, BMP)")
    p.add_argument("--mask", required=True, help="mask PNG of the same size (white = repaint)")
    p.add_argument("--out", required=True, help="folder to write input.png, mask.png, prepare.json")
    p.add_argument("--align", choices=("pad", "crop", "scale"), default="pad",
                   help="how to reach a multiple of 16 px (default: pad, undone exactly later)")
    p.add_argument("--fill", choices=("grey", "blur", "none"), default="grey",
                   help="what to put in the masked area (default: 50%% grey, 128)")
    p.add_argument("--only-masked", action="store_true",
                   help="generate only the mask's bounding box (plus padding) at full detail")
    p.add_argument("--padding", type=int, default=64, metavar="PX",
                   help="context around the mask with --only-masked (default 64)")
    p.add_argument("--feather", type=int, default=8, metavar="PX",
                   help="soft edge used when the result is composited back (default 8)")
    p.set_defaults(handler="prepare")


def _add_composite(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "composite", help="put a generated image back into the original with the soft mask",
        description="Undoes the alignment / crop of `prepare` and blends RESULT into the original "
        "picture with the feathered mask; unmasked pixels stay bit-identical.")
    p.add_argument("--prepared", required=True, help="folder written by `prepare`")
    p.add_argument("--result", required=True, help="the generated image (e.g. sd-cli's output)")
    p.add_argument("--out", required=True, help="where to write the composited PNG")
    p.set_defaults(handler="composite")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stepwise",
        description="Stepwise: FLUX.2 [klein] inpainting and text-to-image, one stage at a time. "
        "With no command the app opens.")
    parser.add_argument("--verbose", action="store_true", help="log debug messages to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_prepare(sub)
    _add_composite(sub)
    from app.pipeline import commands as pipeline_commands

    pipeline_commands.add_parsers(sub)
    return parser


def _handler(name: str) -> Handler:
    if name in ("prepare", "composite"):
        from app.imaging import commands as imaging_commands

        return getattr(imaging_commands, f"cmd_{name}")
    from app.pipeline import commands as pipeline_commands

    return getattr(pipeline_commands, f"cmd_{name}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return EXIT_USAGE
    paths = app_paths()
    try:
        setup_logging(paths.log_dir, verbose=args.verbose)
    except OSError:
        pass  # a read-only home must not stop a headless command
    try:
        return _handler(args.handler)(args)
    except StepwiseError as exc:
        print(f"error: {exc.user_message()}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
