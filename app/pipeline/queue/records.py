"""The queue's records (queue.json's jobs, app/pipeline/queue/jobs.py documents the format):
a job's complete JobSpec with its inputs by content hash, its variation, its outcome."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.pipeline.job.spec import JobSpec, spec_from_dict, spec_to_dict
from app.pipeline.run.format import checksum

SEED_MODES = ("given", "consecutive", "random")
QUEUE_FORMAT = 1  # queue.json (before the database); read once to import it
# A job id names its run folder (runs/<id>): letters, digits, - and _ only, at most 128.
JOB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
# A stored input is inputs/<its sha256><suffix>: nothing else in the queue names a file.
INPUT_NAME = re.compile(r"([0-9a-f]{64})(\.[A-Za-z0-9_-]{1,16})?")


@dataclass(frozen=True)
class QueuedInput:
    """One of a job's files, stored in the queue's inputs/ by content hash."""

    file: str
    sha256: str
    source: str

    def to_json(self) -> dict[str, str]:
        return {"file": self.file, "sha256": self.sha256, "source": self.source}

    @staticmethod
    def from_json(data: Any) -> QueuedInput:
        file, digest, source = data["file"], data["sha256"], data.get("source", "")
        if not isinstance(file, str) or not isinstance(source, str):
            raise TypeError("an input's file and source are text")
        name = INPUT_NAME.fullmatch(file)
        if name is None or name.group(1) != digest:
            raise ValueError(f"the input {file[:80]!r} is not a file of the queue's inputs/")
        if "\0" in source:
            raise ValueError("an input's source holds a NUL")
        return QueuedInput(file, digest, source)


@dataclass(frozen=True)
class Variation:
    """Where a job sits in a set of variations made by one `add`."""

    set: str
    index: int  # 0-based
    count: int
    seeds: str  # given | consecutive | random
    prompt_line: int | None = None  # 1-based line of the prompt list

    def to_json(self) -> dict[str, Any]:
        return {
            "set": self.set,
            "index": self.index,
            "count": self.count,
            "seeds": self.seeds,
            "prompt_line": self.prompt_line,
        }

    @staticmethod
    def from_json(data: Any) -> Variation:
        v = Variation(
            str(data["set"]),
            int(data["index"]),
            int(data["count"]),
            str(data["seeds"]),
            None if data.get("prompt_line") is None else int(data["prompt_line"]),
        )
        if v.seeds not in SEED_MODES:
            raise ValueError(f"the seed mode {v.seeds[:40]!r} is unknown")
        return v


@dataclass(frozen=True)
class Outcome:
    state: str  # done | failed
    run_dir: str
    failure: str | None
    finished: str

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @staticmethod
    def from_json(data: Any) -> Outcome:
        out = Outcome(
            str(data["state"]),
            str(data["run_dir"]),
            None if data.get("failure") is None else str(data["failure"]),
            str(data.get("finished", "")),
        )
        if out.state not in ("done", "failed"):
            raise ValueError(f"the state {out.state[:40]!r} is not done or failed")
        return out


@dataclass(frozen=True)
class QueuedJob:
    """One job of the queue: the complete JobSpec (inputs by hash), its variation, its outcome."""

    id: str
    created: str
    spec: JobSpec  # image / mask / refs empty: they are `image`, `mask`, `refs` below
    image: QueuedInput | None = None
    mask: QueuedInput | None = None
    refs: tuple[QueuedInput, ...] = ()
    variation: Variation | None = None
    outcome: Outcome | None = None
    photo_name: str | None = None  # the picture's file name, recorded with the run's image

    def inputs(self) -> list[QueuedInput]:
        return [f for f in (self.image, self.mask, *self.refs) if f is not None]

    def to_json(self) -> dict[str, Any]:
        def one(f: QueuedInput | None) -> dict[str, str] | None:
            return None if f is None else f.to_json()

        return {
            "id": self.id,
            "created": self.created,
            "spec": spec_to_dict(self.spec),
            "inputs": {
                "image": one(self.image),
                "mask": one(self.mask),
                "refs": [r.to_json() for r in self.refs],
            },
            "variation": None if self.variation is None else self.variation.to_json(),
            "outcome": None if self.outcome is None else self.outcome.to_json(),
            "photo_name": self.photo_name,
        }

    @staticmethod
    def from_json(data: Any) -> QueuedJob:
        job_id = data["id"]
        if not isinstance(job_id, str) or JOB_ID.fullmatch(job_id) is None:
            raise ValueError("the job id is not one Stepwise makes (letters, digits, - and _)")
        inputs = data["inputs"]
        spec = spec_from_dict(data["spec"])
        if spec.image is not None or spec.mask is not None or spec.refs:
            raise ValueError("the spec names files outside the queue's inputs")
        return QueuedJob(
            id=job_id,
            created=str(data.get("created", "")),
            spec=spec,
            image=None if inputs["image"] is None else QueuedInput.from_json(inputs["image"]),
            mask=None if inputs["mask"] is None else QueuedInput.from_json(inputs["mask"]),
            refs=tuple(QueuedInput.from_json(r) for r in inputs["refs"]),
            variation=None if data["variation"] is None else Variation.from_json(data["variation"]),
            outcome=None if data["outcome"] is None else Outcome.from_json(data["outcome"]),
            photo_name=_photo_name(data.get("photo_name")),  # absent in older queue files
        )


def _photo_name(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or any(c in value for c in "/\\\0") or len(value) > 255:
        raise ValueError("the photo name is not a file name")
    return value or None


def settings_key(spec: JobSpec, inputs: tuple[str | None, ...]) -> str:
    """What makes a picture but its prompt and seed, as one hash: the spec without prompt,
    seed, devices and preview (devices and preview do not change the picture) and its input
    files by content. Jobs with the same key differ only by prompt and seed."""
    from app.pipeline.job.spec import DeviceChoice

    bare = dataclasses.replace(
        spec, prompt="", seed=0, image=None, mask=None, refs=(), devices=DeviceChoice(), preview=""
    )
    text = json.dumps([spec_to_dict(bare), list(inputs)], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def job_settings_key(job: QueuedJob) -> str:
    return settings_key(
        job.spec, tuple(f.sha256 if f else None for f in (job.image, job.mask, *job.refs))
    )


# A finished job's run as its outcome was recorded: steps, last completed step, accepted
# step, and run.json's mtime (ns) and size then (`queue list` trusts it while they hold).
RunProgress = tuple[int | None, int, int | None, int, int]


def summary_of(job: QueuedJob, progress: RunProgress | None = None) -> dict[str, Any]:
    """What `queue list` shows of a job (kept beside its document: a list reads no document;
    `progress`: its run's, kept with its outcome: a list reads no run folder)."""
    return {
        "run": None if progress is None else list(progress),
        "id": job.id,
        "created": job.created,
        "prompt": job.spec.prompt,
        "seed": job.spec.seed,
        "steps": job.spec.steps,
        "variation": None if job.variation is None else job.variation.to_json(),
        "outcome": None if job.outcome is None else job.outcome.to_json(),
        "sources": [None if f is None else f.source for f in (job.image, job.mask)]
        + [r.source for r in job.refs],
    }


@dataclass(frozen=True)
class ListedJob:
    """A job as `queue list` shows it, from its summary (summary_of)."""

    id: str
    created: str
    prompt: str
    seed: int
    steps: int
    variation: Variation | None
    outcome: Outcome | None
    image: str | None
    mask: str | None
    refs: tuple[str, ...]
    run: RunProgress | None = None

    @staticmethod
    def of(data: Any) -> ListedJob:
        sources = data["sources"]
        run = data.get("run")
        return ListedJob(
            run=None if run is None else _progress(run),
            id=str(data["id"]),
            created=str(data["created"]),
            prompt=str(data["prompt"]),
            seed=int(data["seed"]),
            steps=int(data["steps"]),
            variation=None if data["variation"] is None else Variation.from_json(data["variation"]),
            outcome=None if data["outcome"] is None else Outcome.from_json(data["outcome"]),
            image=sources[0],
            mask=sources[1],
            refs=tuple(str(s) for s in sources[2:]),
        )


def _progress(run: Any) -> RunProgress:
    steps, last, accepted, mtime, size = run
    return (
        None if steps is None else int(steps),
        int(last),
        None if accepted is None else int(accepted),
        int(mtime),
        int(size),
    )


@dataclass(frozen=True)
class QueueState:
    paused: bool
    jobs: tuple[QueuedJob, ...]

    def job(self, job_id: str) -> QueuedJob:
        for job in self.jobs:
            if job.id == job_id:
                return job
        raise InputError(
            "There is no job {id} in the queue.",
            fix="`queue list` shows the queue's jobs.",
            values={"id": job_id},
        )


@dataclass(frozen=True)
class JobView:
    """A job as `queue list` and the Queue dock show it (read without any lock held long)."""

    job: QueuedJob
    state: str  # queued, running, interrupted, done or failed
    run_dir: Path | None  # the run folder, once made
    steps: int | None
    last_completed_step: int
    accepted_step: int | None


@dataclass(frozen=True)
class ListedView:
    """A job as `queue list` shows it (JobView's fields, from the job's listing entry)."""

    job: ListedJob
    state: str
    run_dir: Path | None
    steps: int | None
    last_completed_step: int
    accepted_step: int | None


@dataclass(frozen=True)
class QueueRest:
    """The jobs after a page, as the Queue dock counts them (indexed queries, no document or
    run folder read): how many, how many open (queued, running or interrupted), held by a
    live worker, failed; and for the ETA one open job per settings with how many share them."""

    total: int = 0
    open: int = 0
    running: int = 0
    failed: int = 0
    groups: tuple[tuple[QueuedJob, int], ...] = ()


@dataclass(frozen=True)
class QueuePage:
    """The first jobs of the queue with their derived states, and the rest as counts."""

    paused: bool
    views: tuple[JobView, ...]
    rest: QueueRest = QueueRest()


def verify_queue(raw: bytes) -> dict[str, Any] | None:
    """queue.json's data when its checksum holds (its jobs are checked one by one on import)."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("format") != QUEUE_FORMAT:
        return None
    if data.get("checksum") != checksum(data) or not isinstance(data.get("jobs"), list):
        return None
    return data
