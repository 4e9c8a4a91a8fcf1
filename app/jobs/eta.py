"""How long the queue's jobs will take, from every stage (issue 41): this computer's measured
stage times (the job in hand's own stages as they end, and the stages of the queue's finished
runs, read from their run folders, so a restart still knows them), and for what was never
measured at a job's size the same stage measured at another size, scaled by the pixel count
(what attention, convolutions and tiles do). Diffuse is kept per step (its steps left are
known); every other stage whole. Pure: no Qt, no clock (tests give the timings)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from app.pipeline.api import RunSnapshot
from app.pipeline.job.spec import JobSpec

DIFFUSE = "diffuse"
# The stages whose time does not grow with the picture (the prompt is 512 tokens whatever
# its length; prepare and composite are measured but small).
SIZE_FREE = frozenset({"llm-encode"})
TIMED_STAGES = ("prepare", "vae-encode", "llm-encode", "diffuse", "vae-decode", "composite")


def job_pixels(spec: JobSpec) -> int:
    """The pixels the model works on: the only-masked target's square, else the job's size
    (a picture job's size is the picture's, the form's width × height)."""
    prepare = spec.prepare
    if spec.image is not None and prepare is not None and prepare.only_masked:
        return int(prepare.masked_target) ** 2
    return max(1, int(spec.width) * int(spec.height))


def cost_class(spec: JobSpec) -> tuple[object, ...]:
    """What, besides the pixels, makes a stage cost what it does: the references the DiT
    attends to, two passes with CFG, the devices and memory switches."""
    return (spec.reference_count, spec.uses_source_ref, spec.guided, spec.devices)


def stages_of(spec: JobSpec) -> tuple[str, ...]:
    """The stages a job runs (vae-encode only with a picture or references)."""
    picture = spec.image is not None or bool(spec.refs) or spec.reference_count > 0
    return tuple(s for s in TIMED_STAGES if s != "vae-encode" or picture)


@dataclass(frozen=True)
class Sample:
    seconds: float  # the whole stage; diffuse: per step
    pixels: int
    cls: tuple[object, ...]


@dataclass
class StageTimes:
    """This computer's stage times, newest per (stage, pixels, cost class)."""

    samples: dict[tuple[str, int, tuple[object, ...]], Sample] = field(default_factory=dict)

    def record(self, stage: str, spec: JobSpec, seconds: float, steps: int | None = None) -> None:
        """A stage that ran (not cached): its seconds (diffuse: with the steps it ran)."""
        if seconds <= 0 or stage not in TIMED_STAGES:
            return
        if stage == DIFFUSE:
            if not steps:
                return
            seconds = seconds / steps
        pixels, cls = job_pixels(spec), cost_class(spec)
        self.samples[(stage, pixels, cls)] = Sample(seconds, pixels, cls)

    def record_step(self, spec: JobSpec, seconds_per_step: float) -> None:
        """The job in hand's measured seconds per step (newer than any record)."""
        if seconds_per_step > 0:
            pixels, cls = job_pixels(spec), cost_class(spec)
            self.samples[(DIFFUSE, pixels, cls)] = Sample(seconds_per_step, pixels, cls)

    def record_run(self, run: RunSnapshot) -> None:
        """The stages of a run folder that ran here (cached ones cost nothing)."""
        for stage in run.stages:
            if stage.cached or stage.seconds is None or stage.state != "done":
                continue
            steps = (run.last_completed_step or run.steps) if stage.name == DIFFUSE else None
            self.record(stage.name, run.spec, stage.seconds, steps)

    def estimate(self, stage: str, spec: JobSpec) -> float | None:
        """Seconds of `stage` for `spec` (diffuse: per step); None: never measured here."""
        pixels, cls = job_pixels(spec), cost_class(spec)
        exact = self.samples.get((stage, pixels, cls))
        if exact is not None:
            return exact.seconds
        same = [s for (name, _p, _c), s in self.samples.items() if name == stage]
        if not same:
            return None
        alike = [s for s in same if s.cls == cls] or same
        nearest = min(alike, key=lambda s: abs(s.pixels - pixels))
        if stage in SIZE_FREE:
            return nearest.seconds
        return nearest.seconds * pixels / nearest.pixels


@dataclass(frozen=True)
class JobLeft:
    """What is left of one job: the stages done and diffuse's step."""

    spec: JobSpec
    done: frozenset[str] = frozenset()
    step: int = 0
    steps: int | None = None  # diffuse's real steps once known, else the job's


def job_seconds(times: StageTimes, left: JobLeft) -> float | None:
    """The seconds the rest of one job takes; None when a stage it still runs was never
    measured on this computer (an honest "unknown")."""
    total = 0.0
    for stage in stages_of(left.spec):
        if stage in left.done:
            continue
        seconds = times.estimate(stage, left.spec)
        if seconds is None:
            if stage in ("prepare", "composite"):
                continue  # light: never what makes a queue's time unknown
            return None
        if stage == DIFFUSE:
            steps = left.steps or left.spec.steps
            seconds *= max(0, steps - left.step)
        total += seconds
    return total


def queue_seconds(times: StageTimes, jobs: Iterable[JobLeft]) -> float | None:
    """The whole queue's time left (None when any job's is unknown)."""
    total = 0.0
    for left in jobs:
        seconds = job_seconds(times, left)
        if seconds is None:
            return None
        total += seconds
    return total


def times_of_runs(runs: Iterable[RunSnapshot]) -> StageTimes:
    times = StageTimes()
    for run in runs:
        times.record_run(run)
    return times


__all__ = ["JobLeft", "StageTimes", "job_seconds", "queue_seconds", "times_of_runs"]
