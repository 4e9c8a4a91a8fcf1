"""run.json: round trip, checksum, damage detection and the fallback to the previous good copy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.errors import DamagedFileError
from app.pipeline.failures import Failure, FailureKind
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
from app.pipeline.run.folder import (
    BACKUP_FILE,
    RUN_FILE,
    STAGES,
    ModelInputRecord,
    create_run,
    open_run,
    remove_leftover_temps,
)
from app.pipeline.run.format import checksum
from app.pipeline.run.status import status_json
from app.pipeline.runner import snapshot_of


def _spec() -> JobSpec:
    return JobSpec(
        models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"),
        prompt="a red fox",
        refs=("r1.png",),
        steps=6,
        seed=7,
        strength=0.75,
        devices=DeviceChoice(diffusion="vulkan1"),
    )


def test_round_trip(tmp_path: Path) -> None:
    run = create_run(tmp_path / "runs", _spec())
    run.stage("diffuse").mark("done", seconds=1.5, key="ab" * 32, cached=False)
    run.steps = 6
    run.last_completed_step = 6
    run.save()
    again = open_run(run.dir)
    assert again.spec == _spec()
    assert again.steps == 6 and again.last_completed_step == 6
    assert [s.name for s in again.stages()] == list(STAGES)
    diffuse = next(s for s in again.stages() if s.name == "diffuse")
    assert diffuse.state == "done" and diffuse.seconds == 1.5
    assert json.loads((run.dir / RUN_FILE).read_text())["format"] == 2


def test_edited_manifest_is_not_trusted(tmp_path: Path) -> None:
    run = create_run(tmp_path / "runs", _spec())
    path = run.dir / RUN_FILE
    data = json.loads(path.read_text())
    data["last_completed_step"] = 3  # a changed value without a matching checksum
    path.write_text(json.dumps(data))
    (run.dir / BACKUP_FILE).unlink(missing_ok=True)
    with pytest.raises(DamagedFileError):
        open_run(run.dir)


@pytest.mark.parametrize("damage", [b"", b'{"format": 1', b"\x00" * 50, b"[]"])
def test_truncated_or_garbage_manifest_falls_back_to_previous(
    tmp_path: Path, damage: bytes
) -> None:
    run = create_run(tmp_path / "runs", _spec())
    run.last_completed_step = 2
    run.save()  # run.json.bak now holds the first good manifest
    (run.dir / RUN_FILE).write_bytes(damage)
    again = open_run(run.dir)
    assert again.last_completed_step == 0
    (run.dir / BACKUP_FILE).write_bytes(damage)
    with pytest.raises(DamagedFileError):
        open_run(run.dir)


def test_paths_outside_the_run_dir_are_refused(tmp_path: Path) -> None:
    run = create_run(tmp_path / "runs", _spec())
    run.set_result("../../etc/passwd")
    run.save()
    (run.dir / BACKUP_FILE).unlink()
    with pytest.raises(DamagedFileError):
        open_run(run.dir)


def test_not_a_run_folder(tmp_path: Path) -> None:
    with pytest.raises(DamagedFileError):
        open_run(tmp_path)


def test_newer_format_is_refused(tmp_path: Path) -> None:
    run = create_run(tmp_path / "runs", _spec())
    path = run.dir / RUN_FILE
    data = json.loads(path.read_text())
    data["format"] = 3
    data["checksum"] = checksum(data)
    path.write_text(json.dumps(data))
    with pytest.raises(DamagedFileError):
        open_run(run.dir)


def test_a_locked_run_is_not_executed_twice(tmp_path: Path) -> None:
    from app.core.paths import app_paths
    from app.pipeline import events as ev
    from app.pipeline.control import RunControl
    from app.pipeline.run.lock import RunLock
    from app.pipeline.runner import Pipeline

    pipeline = Pipeline(app_paths(), cache_limit_mb=16)
    for name in ("d.gguf", "l.gguf"):  # create_run checks the models' first bytes (preflight)
        (tmp_path / name).write_bytes(b"GGUF" + bytes(28))
    (tmp_path / "v.safetensors").write_bytes(b"\x02" + bytes(7) + b"{}")
    models = ModelFiles(*(str(tmp_path / n) for n in ("d.gguf", "l.gguf", "v.safetensors")))
    run = pipeline.create_run(JobSpec(models=models, prompt="x"), tmp_path / "run")
    with RunLock(run.dir):
        events = list(pipeline.execute(run.dir, RunControl()))
    assert len(events) == 1 and isinstance(events[0], ev.RunFailed)
    assert "another Stepwise process" in events[0].message
    assert events[0].kind is FailureKind.BUSY


FORMAT_1 = Path(__file__).parent / "data" / "run_format1.json"


def test_a_format_1_manifest_opens_and_is_written_as_format_2(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / RUN_FILE).write_bytes(FORMAT_1.read_bytes())  # written by the format-1 code
    run = open_run(folder)
    assert run.id == "20261130-120000-abcdef" and run.spec.prompt == "a format-1 fox"
    assert run.model_input == ModelInputRecord(64, 64, None)  # "size" became model_input
    assert run.failure is None and run.engine_pid is None
    assert run.stage("diffuse").checkpoint_key == "44" * 32
    assert run.stage("llm-encode").outputs["conditioning.bin"].sha256 == "33" * 32
    assert run.last_completed_step == 3 and run.steps == 6
    run.save()
    data = json.loads((folder / RUN_FILE).read_text())
    assert data["format"] == 2 and "size" not in data
    assert data["model_input"] == {"width": 64, "height": 64, "region": None}
    assert open_run(folder).model_input == ModelInputRecord(64, 64, None)


def test_a_damaged_format_1_manifest_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    folder.mkdir()
    data = json.loads(FORMAT_1.read_text())
    data["last_completed_step"] = 5  # checksum no longer matches
    (folder / RUN_FILE).write_text(json.dumps(data))
    with pytest.raises(DamagedFileError):
        open_run(folder)


def test_failure_and_model_input_round_trip(tmp_path: Path) -> None:
    run = create_run(tmp_path / "runs", _spec())
    log = run.dir / "logs" / "diffuse.log"
    run.failure = Failure(FailureKind.OUT_OF_MEMORY, "diffuse", "out of VRAM", log)
    run.model_input = ModelInputRecord(256, 128, (10, 20, 300, 150))
    run.save()
    again = open_run(run.dir)
    assert again.failure == Failure(FailureKind.OUT_OF_MEMORY, "diffuse", "out of VRAM", log)
    assert again.model_input == ModelInputRecord(256, 128, (10, 20, 300, 150))
    assert status_json(snapshot_of(again))["model_input"] == {
        "width": 256,
        "height": 128,
        "region": [10, 20, 300, 150],
    }
    assert status_json(snapshot_of(again))["failure"]["kind"] == "out_of_memory"


def test_missing_manifest_with_a_good_backup_opens(tmp_path: Path) -> None:
    run = create_run(tmp_path / "runs", _spec())
    run.last_completed_step = 2
    run.save()  # the backup holds the first manifest
    (run.dir / RUN_FILE).unlink()
    assert open_run(run.dir).last_completed_step == 0


def test_leftover_temporary_files_are_removed(tmp_path: Path) -> None:
    run = create_run(tmp_path / "runs", _spec())
    stale = [
        run.dir / ".run.json.bak.0123456789ab.tmp",
        run.dir / ".run.json.a1b2c3d4e5f6.tmp",
        run.dir / "prepared" / ".input.png.ffffffffffff.tmp",
    ]
    keep = [run.dir / "notes.tmp", run.dir / ".hidden"]
    for path in stale + keep:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")
    assert sorted(remove_leftover_temps(run.dir)) == sorted(stale)
    assert all(p.exists() for p in keep) and not any(p.exists() for p in stale)
