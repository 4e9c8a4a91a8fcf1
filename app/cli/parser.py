"""Every argparse parser of `python -m app COMMAND` (the pipeline and imaging hold none)."""

from __future__ import annotations

import argparse
import re
from typing import NoReturn

from app.cli.run_flags import add_compat_flags, add_param_flags
from app.pipeline.job import params as P
from app.pipeline.job.presets import PRESET_NAMES

COMMANDS = ("prepare", "composite", "run", "resume", "status", "selftest", "queue", "measure")


class Parser(argparse.ArgumentParser):
    """argparse's parser, with a hint where its message leaves the user stuck (its subparsers
    are of this class too)."""

    def error(self, message: str) -> NoReturn:
        found = re.fullmatch(r"argument (?:\S+/)?(--\S+): expected one argument", message)
        if found:  # "--context -5,0,64,64": argparse takes -5,… for a flag (issue 29, defect 12)
            flag = found.group(1)
            message += f" (a value that starts with '-' is written {flag}=VALUE, e.g. {flag}=-5…)"
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="stepwise",
        description="Stepwise: FLUX.2 [klein] inpainting and text-to-image, one stage at a time. "
        "With no command the app opens.",
    )
    parser.add_argument("--verbose", action="store_true", help="log debug messages to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_prepare(sub)
    _add_composite(sub)
    _add_run(sub)
    _add_resume_status_selftest(sub)
    from app.cli.queue_parser import add_queue

    add_queue(sub, add_job_flags)
    from app.cli.measure_command import add_measure

    add_measure(sub)
    return parser


def _param(parser: argparse.ArgumentParser, p: P.Param) -> None:
    """A Prepare parameter under its table flag, name, choices and default (plain argparse
    defaults: `prepare` always says everything)."""
    if p.kind is bool:
        parser.add_argument(
            *p.flags,
            dest=p.name,
            action=argparse.BooleanOptionalAction,
            default=p.default,
            help=p.help,
        )
    else:
        parser.add_argument(
            *p.flags,
            dest=p.name,
            type=p.kind,
            choices=p.choices,
            default=p.default,
            metavar=p.metavar,
            help=f"{p.help} (default: {p.default})".replace("%", "%%"),
        )


def _add_prepare(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "prepare",
        help="align an image and mask to 16 px, fill the masked area, export",
        description="Writes OUT/input.png, OUT/mask.png and OUT/prepare.json exactly as sd-cli "
        "and sd-stage expect them (mask: white = repaint, black = keep).",
    )
    p.add_argument("image", help="the picture to inpaint (PNG, JPEG, WebP, BMP)")
    p.add_argument("--mask", required=True, help="mask PNG of the same size (white = repaint)")
    p.add_argument("--out", required=True, help="folder to write input.png, mask.png, prepare.json")
    for param in (
        P.ALIGN, P.FILL, P.ONLY_MASKED, P.PADDING, P.FEATHER, P.MASKED_TARGET, P.CONTEXT,
        P.EXPAND,
    ):  # fmt: skip
        _param(p, param)
    p.set_defaults(handler="prepare")


def _add_composite(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "composite",
        help="put a generated image back into the original with the soft mask",
        description="Undoes the alignment / crop of `prepare` and blends RESULT into the original "
        "picture with the feathered mask; unmasked pixels stay bit-identical.",
    )
    p.add_argument("--prepared", required=True, help="folder written by `prepare`")
    p.add_argument("--result", required=True, help="the generated image (e.g. sd-cli's output)")
    p.add_argument("--out", required=True, help="where to write the composited PNG")
    for param in (P.COLOR_MATCH, P.COLOR_MATCH_STRENGTH, P.SEAM_BLEND):
        _param(p, param)
    p.set_defaults(handler="composite")


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="inpaint or generate an image, one engine stage at a time",
        description="Takes sd-cli's flags. Writes a run folder (run.json, stage outputs, "
        "checkpoints, logs, result.png); Ctrl+C suspends after the current step.",
    )
    add_job_flags(p)
    o = p.add_argument_group("output")
    o.add_argument(
        "--run-dir", metavar="DIR", help="run folder (default: a new one in the data folder)"
    )
    o.add_argument("--engine", metavar="PATH", help="the sd-stage binary to use")
    o.add_argument("-o", "--output", metavar="PNG", help="also copy the result here")
    o.add_argument(
        "--force",
        action="store_true",
        help="run even when the memory plan says the job does not fit the device",
    )
    p.set_defaults(handler="run")


def add_job_flags(p: argparse.ArgumentParser) -> None:
    """The flags of one job (`run`, `queue add`): the parameter table, the inputs, sd-cli's."""
    add_param_flags(p)
    p.add_argument(
        "--preset",
        choices=PRESET_NAMES,
        help="an edit preset: sets --fill, --strength, --source-ref and (add, remove, "
        "background) a prompt template; flags given beside it win",
    )
    i = p.add_argument_group("inputs")
    i.add_argument("-i", "--init-img", metavar="IMAGE", help="image to inpaint (none = txt2img)")
    i.add_argument("--mask", metavar="MASK", help="white = repaint")
    i.add_argument("-r", "--ref-image", action="append", default=[], metavar="IMAGE")
    i.add_argument("--device", help="device for every stage (cpu, vulkan0, ...)")
    add_compat_flags(p)


def _add_resume_status_selftest(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "resume",
        help="continue a suspended, cancelled or crashed run",
        description="Runs what is left of the run in DIR, from its last valid "
        "checkpoint; finished stages are not repeated.",
    )
    p.add_argument("run_dir", metavar="DIR")
    p.add_argument("--engine", metavar="PATH", help="the sd-stage binary to use")
    p.add_argument(
        "--accept-step",
        type=int,
        metavar="K",
        help="finish from step K's checkpoint (its x0 prediction decoded and composited) "
        "without running the steps after it",
    )
    p.add_argument(
        "--start-over",
        action="store_true",
        help="start diffuse again when its checkpoints no longer fit the run (they are "
        "deleted then; without this flag they are kept and the resume is refused)",
    )
    p.set_defaults(handler="resume")

    p = sub.add_parser(
        "status",
        help="show the stages and steps of a run",
        description="Prints each stage's state, whether it came from the cache, "
        "its seconds, the last completed step, what the engine was given and "
        "the result; --json adds every parameter of the run.",
    )
    p.add_argument("run_dir", metavar="DIR")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler="status")

    p = sub.add_parser(
        "selftest",
        help="generate tiny models and run every stage",
        description="Generates tiny random-weight klein models, runs an "
        "inpainting job through every stage and reports the device each stage "
        "really ran on and the seconds per step.",
    )
    p.add_argument("--device", default="cpu", help="device for every stage (cpu, vulkan0, ...)")
    p.add_argument("--engine", metavar="PATH", help="the sd-stage binary to use")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(handler="selftest")
