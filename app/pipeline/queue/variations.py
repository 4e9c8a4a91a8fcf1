"""Variations of one job (`queue add --variations N`, the GUI's "Add N variations"): N seeds,
consecutive or random (each drawn once here and put in its job), once per line of a prompt list.
A variation never takes a seed a job of the same settings in the queue already has (`used_seeds`):
the same picture twice is no variation."""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.engine.tensorfile import file_sha256
from app.pipeline.job.spec import DeviceChoice, JobSpec
from app.pipeline.queue.records import QueuedJob, Variation
from app.pipeline.runner import SEED_RANGE  # the seeds the pipeline draws for -1

MAX_VARIATIONS = 1000
MAX_PROMPT_LINES = 1000
MAX_JOBS_PER_ADD = 100_000  # one `add` is one transaction; bench/queue_scale.py measures it


def prompt_lines(path: str) -> list[tuple[int, str]]:
    """The non-empty lines of a prompt list, with their 1-based line numbers."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            "Cannot read the prompt list {path}: {reason}.",
            path=path,
            fix="Give a UTF-8 text file with one prompt per line.",
            values={"reason": getattr(exc, "strerror", None) or exc},
        ) from exc
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not lines:
        raise InputError(
            "The prompt list {path} has no prompt.",
            path=path,
            fix="Write one prompt per line.",
        )
    if len(lines) > MAX_PROMPT_LINES:
        raise InputError(
            "The prompt list {path} has {count} prompts; at most {most} are queued at once.",
            path=path,
            fix="Split the list.",
            values={"count": len(lines), "most": MAX_PROMPT_LINES},
        )
    return lines


def _settings(spec: JobSpec, inputs: tuple[str | None, ...]) -> Any:
    """What makes a picture, less its seed: the spec without seed, devices and preview (they
    do not change the picture), its input files by content."""
    bare = dataclasses.replace(
        spec, seed=0, image=None, mask=None, refs=(), devices=DeviceChoice(), preview=""
    )
    return bare, inputs


def _digest(path: str | None) -> str | None:
    try:
        return None if path is None else file_sha256(path)
    except OSError:
        return path  # unreadable: the add says so; no queued job matches it


def used_seeds(spec: JobSpec, jobs: Iterable[QueuedJob]) -> set[tuple[str, int]]:
    """(prompt, seed) of every queued job whose settings are those of `spec` but for the
    prompt and seed: `variations` avoids those seeds for the same prompt."""
    inputs = tuple(_digest(p) for p in (spec.image, spec.mask, *spec.refs))
    key = _settings(dataclasses.replace(spec, prompt=""), inputs)
    used: set[tuple[str, int]] = set()
    for job in jobs:
        theirs = tuple(f.sha256 if f else None for f in (job.image, job.mask, *job.refs))
        if _settings(dataclasses.replace(job.spec, prompt=""), theirs) == key:
            used.add((job.spec.prompt, job.spec.seed))
    return used


def variations(
    spec: JobSpec,
    count: int,
    random_seeds: bool,
    prompts: list[tuple[int, str]] | None,
    used: Collection[tuple[str, int]] = (),
) -> tuple[list[JobSpec], list[Variation | None]]:
    """The jobs of one `add`: per prompt (the job's, or each line of the list), `count` seeds
    (random ones drawn here, each once; consecutive ones from the job's seed, drawn once when
    it is -1), none of them a seed in `used` for that prompt (`used_seeds`: the next free one
    follows). Every seed is in its spec, so the queue records it."""
    if not 1 <= count <= MAX_VARIATIONS:
        raise InputError(
            "--variations {count} is out of range.",
            fix="Use 1 to {most}.",
            values={"count": count, "most": MAX_VARIATIONS},
        )
    lines: list[tuple[int | None, str]] = (
        [(None, spec.prompt)] if prompts is None else list(prompts)
    )
    total = len(lines) * count
    if total > MAX_JOBS_PER_ADD:
        raise InputError(
            "{lines} prompt(s) × --variations {count} make {total} jobs; one add queues at most "
            "{most}.",
            fix="Add fewer variations per prompt, or split the prompt list.",
            values={"lines": len(lines), "count": count, "total": total, "most": MAX_JOBS_PER_ADD},
        )
    if total == 1:
        return [spec], [None]
    set_id = secrets.token_hex(4)
    mode = "random" if random_seeds else "consecutive" if count > 1 else "given"
    base = spec.seed if spec.seed >= 0 else secrets.randbelow(SEED_RANGE)
    specs: list[JobSpec] = []
    tags: list[Variation | None] = []
    for line, prompt in lines:
        taken = {seed for p, seed in used if p == prompt}
        seed = base
        for i in range(count):
            if mode == "random":
                seed = secrets.randbelow(SEED_RANGE)
                while seed in taken:
                    seed = secrets.randbelow(SEED_RANGE)
            elif mode == "consecutive":
                seed = base if i == 0 else (seed + 1) % SEED_RANGE
                while seed in taken:  # at most len(taken) steps: the seed range is far larger
                    seed = (seed + 1) % SEED_RANGE
            else:
                seed = spec.seed
            taken.add(seed)
            specs.append(dataclasses.replace(spec, prompt=prompt, seed=seed))
            tags.append(Variation(set_id, len(specs) - 1, total, mode, line))
    return specs, tags
