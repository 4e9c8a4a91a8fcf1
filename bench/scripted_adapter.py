"""`PipelineAPI` over tests/jobs/scripted.py's old-style interface (Run objects, keyword
changes), for bench/runner.py's scripted stream only. Delete it with scripted.py once the
bench streams from tests/fakes/fake_pipeline.py (which implements the protocol)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from app.pipeline.api import (
    DeviceInfo,
    EngineCatalog,
    ModelInput,
    RunSnapshot,
    RunSummary,
    SamplerInfo,
    StageSnapshot,
)
from app.pipeline.control import RunControl
from app.pipeline.events import Event

LIST_TIMEOUT_S = 30


class LegacyPipeline:
    """Implements PipelineAPI by delegating to an old-style Pipeline."""

    def __init__(self, pipeline: Any) -> None:
        self.inner = pipeline

    def devices(self) -> list[DeviceInfo]:
        out = []
        for d in self.inner.devices():
            name, description = (
                (d[0], d[1]) if isinstance(d, tuple | list) else (d.name, d.description)
            )
            out.append(DeviceInfo(str(name), str(description)))
        return out

    def catalog(self) -> EngineCatalog:
        """From `sd-stage --list-samplers` (native/PROTOCOL.md), asked of the engine itself."""
        own = getattr(self.inner, "catalog", None)
        if callable(own):
            return own()
        engine = self.inner._engine()  # the old Pipeline's engine lookup (raises without one)
        done = subprocess.run(
            [str(engine), "--list-samplers"],
            capture_output=True,
            text=True,
            timeout=LIST_TIMEOUT_S,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{engine} --list-samplers failed: {done.stderr.strip()[:200]}")
        data = json.loads(done.stdout.strip().splitlines()[-1])
        return EngineCatalog(
            tuple(SamplerInfo(str(s["name"]), bool(s["resumable"])) for s in data["samplers"]),
            tuple(str(s) for s in data["schedulers"]),
        )

    def create_run(self, spec: Any, run_dir: Path | None = None) -> RunSnapshot:
        return to_snapshot(self.inner.create_run(spec, run_dir))

    def snapshot(self, run_dir: Path) -> RunSnapshot:
        return to_snapshot(self.inner.open_run(run_dir))

    def update_run(self, run_dir: Path, changes: Mapping[str, Any]) -> RunSnapshot:
        return to_snapshot(self.inner.update_run(self.inner.open_run(run_dir), **changes))

    def branch(self, run_dir: Path, from_step: int, changes: Mapping[str, Any]) -> RunSnapshot:
        run = self.inner.open_run(run_dir)
        return to_snapshot(self.inner.branch(run, from_step, **changes))

    def unfinished_runs(self) -> list[RunSummary]:
        out = []
        for s in self.inner.unfinished_runs():
            try:
                if not self.snapshot(s.dir).resumable:
                    continue  # failed before doing anything: history, not an offer
            except Exception:  # noqa: BLE001 - a damaged run is not offered
                continue
            out.append(RunSummary(s.dir, s.id, s.created, s.prompt, s.last_completed_step, s.steps))
        return out

    def execute(
        self, run_dir: Path, control: RunControl, *, only: str | None = None
    ) -> Iterator[Event]:
        return self.inner.execute(self.inner.open_run(run_dir), control, only=only)

    def decode_step(self, run_dir: Path, step: int, control: RunControl) -> Iterator[Event]:
        return self.inner.decode_step(self.inner.open_run(run_dir), step, control)


def to_snapshot(run: Any) -> RunSnapshot:
    """A frozen copy of an old-style Run."""
    data = run.data
    stages = tuple(
        StageSnapshot(s.name, s.state, s.cached, s.seconds, s.device) for s in run.stages()
    )
    size = data.get("size")
    model_input = None
    if isinstance(size, list) and len(size) == 2:
        region = _region(run)
        model_input = ModelInput(int(size[0]), int(size[1]), region)
    return RunSnapshot(
        dir=Path(run.dir),
        id=run.id,
        created=str(data.get("created", "")),
        spec=run.spec,
        stages=stages,
        steps=run.steps,
        last_completed_step=run.last_completed_step,
        checkpoints=tuple(range(1, run.last_completed_step + 1)),
        result=run.result if run.finished else None,
        model_input=model_input,
        failure=None,
    )


def _region(run: Any) -> tuple[int, int, int, int] | None:
    path = run.output("prepare", "prepare.json")
    if path is None:
        return None
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    region = record.get("region") if isinstance(record, dict) else None
    if isinstance(region, list | tuple) and len(region) == 4:
        return (int(region[0]), int(region[1]), int(region[2]), int(region[3]))
    if isinstance(region, dict) and {"x", "y", "width", "height"} <= set(region):
        return (int(region["x"]), int(region["y"]), int(region["width"]), int(region["height"]))
    return None
