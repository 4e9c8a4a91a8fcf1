"""What a memory plan says, in the words the pipeline and everything above it share: the
settings a stage runs with (`StageSettings`), what fitting changed (`Change`), whether a plan
fits its device (`Verdict`), a stage's `Fit`, a job's `JobPlan` and its verdict (`Unfit`,
`unfit_of`). Plain data: execute/fit.py fits, execute/job_plan.py plans (the engine's own
`--plan`), PipelineAPI.plan hands the result above the pipeline; the Devices pane, the fit
guard and the CLI's `run` read it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.engine.plan import StagePlan
from app.engine.stage import Stage

CPU = "cpu"
MAX_SEARCH_SIDE = 2048  # the longest side the size search ever plans at
ALIGN_PX = 16


@dataclass(frozen=True)
class StageSettings:
    """The memory switches one stage runs with."""

    device: str = CPU
    flash_attention: bool = False  # diffuse
    vae_tiling: bool = False  # vae stages
    vae_tile_size: int | None = None  # with vae_tiling
    weights_on_cpu: bool = False  # diffuse: --params-backend cpu + --max-vram
    max_vram_gib: float | None = None  # with weights_on_cpu

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> StageSettings:
        names = {f.name for f in dataclasses.fields(StageSettings)}
        return StageSettings(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class Change:
    """One setting changed for a stage: what, from what to what, and why (a WHY_* code)."""

    stage: str
    what: str  # a StageSettings field name
    old: object
    new: object
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage, "what": self.what, "from": self.old, "to": self.new,
                "why": self.why}  # fmt: skip

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Change:
        return Change(
            str(data["stage"]), str(data["what"]), data.get("from"), data.get("to"),
            str(data["why"]),
        )  # fmt: skip


@dataclass(frozen=True)
class Verdict:
    """Whether a plan fits a device, with the figures the UI shows (bytes; None = unknown)."""

    fits: bool
    device: str
    weights_bytes: int
    compute_bytes: int
    total_bytes: int
    largest_bytes: int  # max(largest allocation, largest tensor)
    available_bytes: int | None  # free (else total) memory of the device
    budget_bytes: int | None  # available minus the margin
    cap_bytes: int | None  # the largest single allocation allowed
    reason: str = ""  # "", "total" or "allocation"


@dataclass(frozen=True)
class Fit:
    """The settings chosen for a stage, the plan and verdict behind them, what was changed."""

    stage: str
    settings: StageSettings
    plan: StagePlan | None
    verdict: Verdict | None
    changes: tuple[Change, ...]

    @property
    def fits(self) -> bool:
        return self.verdict is None or self.verdict.fits


@dataclass(frozen=True)
class JobPlan:
    """Every stage a job runs, fitted at width×height (execute/job_plan.py makes it)."""

    width: int
    height: int
    fits: Mapping[str, Fit] = field(default_factory=dict)  # stage → fit, in stage order
    # The largest size without slow settings; (0, 0): none fits; None: not known.
    largest: tuple[int, int] | None = None
    # Reference images diffuse attends to beside the picture (planned at its size, in
    # diffuse's compute above); source_ref: the first is the photo itself.
    references: int = 0
    source_ref: bool = False

    @property
    def picture_tokens(self) -> int:
        """The picture's image tokens per step (one per 16×16 px cell)."""
        return max(1, self.width // 16) * max(1, self.height // 16)

    @property
    def reference_tokens(self) -> int:
        """The tokens the reference images add to every step (each at the picture's size)."""
        return self.references * self.picture_tokens

    @property
    def too_large(self) -> bool:
        """The picture is larger than what fits without slow settings."""
        return self.largest not in (None, (0, 0)) and self.width * self.height > (
            self.largest[0] * self.largest[1]
        )


@dataclass(frozen=True)
class Unfit:
    """The first stage the plan says cannot fit, even with every memory saver (slow False), or
    the picture is larger than what fits without slow settings (slow True: diffuse would keep
    its weights partly in RAM, many times slower), and the offers."""

    fit: Fit
    width: int
    height: int
    largest: tuple[int, int] | None  # the largest size of this aspect ratio that fits; None
    slow: bool = False

    @property
    def stage(self) -> str:
        return self.fit.stage

    @property
    def needed_bytes(self) -> int:
        v = self.fit.verdict
        return 0 if v is None else v.total_bytes

    @property
    def available_bytes(self) -> int | None:
        v = self.fit.verdict
        return None if v is None else v.available_bytes

    @property
    def device(self) -> str:
        v = self.fit.verdict
        return self.fit.settings.device if v is None else v.device

    def masked_target(self) -> int | None:
        """An only-masked target (its side, px, aligned) whose square fits: the area of the
        largest size that fits; None when not even the smallest fits."""
        if self.largest is None or self.largest == (0, 0):
            return None
        side = int(math.isqrt(self.largest[0] * self.largest[1]))
        return max(ALIGN_PX, side // ALIGN_PX * ALIGN_PX)


def unfit_of(plan: JobPlan | None) -> Unfit | None:
    """The plan's first stage that does not fit, else diffuse when the picture is larger than
    what fits without slow settings (None: it fits, or no plan)."""
    if plan is None:
        return None
    for fit in plan.fits.values():
        if not fit.fits:
            return Unfit(fit, plan.width, plan.height, plan.largest)
    diffuse = plan.fits.get(Stage.DIFFUSE)
    slowed = diffuse is not None and any(c.what == "weights_on_cpu" for c in diffuse.changes)
    if diffuse is not None and (plan.too_large or slowed):
        return Unfit(diffuse, plan.width, plan.height, plan.largest, slow=True)
    return None
