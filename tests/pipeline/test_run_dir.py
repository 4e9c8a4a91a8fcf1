"""run.json: round trip, checksum, damage detection and the fallback to the previous good copy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.errors import DamagedFileError
from app.pipeline.run_dir import BACKUP_FILE, RUN_FILE, STAGES, create_run, open_run
from app.pipeline.spec import DeviceChoice, JobSpec, ModelFiles


def _spec() -> JobSpec:
    return JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="a red fox",
                   refs=("r1.png",), steps=6, seed=7, strength=0.75,
                   devices=DeviceChoice(diffusion="vulkan1"))


def test_round_trip(tmp_path: Path) -> None:
    run = create_run(tmp_path / "runs", _spec())
    run.stage("diffuse").update(state="done", seconds=1.5, key="ab" * 32)
    run.data["steps"] = 6
    run.data["last_completed_step"] = 6
    run.save()
    again = open_run(run.dir)
    assert again.spec == _spec()
    assert again.steps == 6 and again.last_completed_step == 6
    assert [s.name for s in again.stages()] == list(STAGES)
    diffuse = next(s for s in again.stages() if s.name == "diffuse")
    assert diffuse.state == "done" and diffuse.seconds == 1.5
    assert json.loads((run.dir / RUN_FILE).read_text())["format"] == 1


def test_edited_manifest_is_not_trusted(tmp_path: Path) -> None:
    run = create_run(tmp_path / "runs", _spec())
    path = run.dir / RUN_FILE
    data = json.loads(path.read_text())
    data["last_completed_step"] = 3  # a changed value without a matching checksum
    path.write_text(json.dumps(data))
    (run.dir / BACKUP_FILE).unlink(missing_ok=True)
    with pytest.raises(DamagedFileError):
        open_run(run.dir)


@pytest.mark.parametrize("damage", [b"", b"{\"format\": 1", b"\x00" * 50, b"[]"])
def test_truncated_or_garbage_manifest_falls_back_to_previous(tmp_path: Path,
                                                              damage: bytes) -> None:
    run = create_run(tmp_path / "runs", _spec())
    run.data["last_completed_step"] = 2
    run.save()  # run.json.bak now holds the first good manifest
    (run.dir / RUN_FILE).write_bytes(damage)
    again = open_run(run.dir)
    assert again.last_completed_step == 0
    (run.dir / BACKUP_FILE).write_bytes(damage)
    with pytest.raises(DamagedFileError):
        open_run(run.dir)


def test_paths_outside_the_run_dir_are_refused(tmp_path: Path) -> None:
    run = create_run(tmp_path / "runs", _spec())
    run.data["result"] = "../../etc/passwd"
    run.save()
    (run.dir / BACKUP_FILE).unlink()
    with pytest.raises(DamagedFileError):
        open_run(run.dir)


def test_not_a_run_folder(tmp_path: Path) -> None:
    with pytest.raises(DamagedFileError):
        open_run(tmp_path)


def test_newer_format_is_refused(tmp_path: Path) -> None:
    run = create_run(tmp_path / "runs", _spec())
    run.data["format"] = 2
    run.save()
    (run.dir / BACKUP_FILE).unlink()
    with pytest.raises(DamagedFileError):
        open_run(run.dir)


def test_a_locked_run_is_not_executed_twice(tmp_path: Path) -> None:
    from app.core.paths import app_paths
    from app.pipeline import events as ev
    from app.pipeline.control import RunControl
    from app.pipeline.run_lock import RunLock
    from app.pipeline.runner import Pipeline

    pipeline = Pipeline(app_paths(), cache_limit_mb=16)
    run = pipeline.create_run(_spec().__class__(models=_spec().models, prompt="x"),
                              tmp_path / "run")
    with RunLock(run.dir):
        events = list(pipeline.execute(run, RunControl()))
    assert len(events) == 1 and isinstance(events[0], ev.RunFailed)
    assert "another Stepwise process" in events[0].message
