"""No open() that can block, no traceback for an odd entry (issue 38, items 6 and 7): a FIFO
at Stepwise's own log, at a checkpoint, at a stage's output or at a prepared file is refused
by name (the command ends, in time, without a traceback); a folder Stepwise makes that is a
file is a message; `status` and `queue list` into a closed pipe end quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.paths import app_paths
from app.core.safe_files import SafeFileError
from tests.cli.conftest import REPO_ROOT, run_cli

TIMEOUT_S = 60


def _clean(done: subprocess.CompletedProcess, *codes: int) -> str:
    said = done.stdout + done.stderr
    assert "Traceback" not in said, said
    assert done.returncode in codes, (done.returncode, said)
    return said


def test_a_fifo_at_the_log_file_hangs_no_command() -> None:
    log = app_paths().log_dir / "stepwise.log"
    log.parent.mkdir(parents=True)
    os.mkfifo(log)
    said = _clean(run_cli("queue", "list", timeout=TIMEOUT_S), 0)
    assert "stepwise.log" in said and "FIFO" in said
    assert log.is_fifo()  # left where it is


def _reader(what: str, path: Path) -> subprocess.CompletedProcess:
    """One reader of the pipeline in a child (a read that blocks is a timeout, not a hang)."""
    code = {
        "sha256": "from app.engine.tensorfile import file_sha256 as f",
        "tensors": "from app.engine.tensorfile import read_tensors as f",
        "picture": "from app.imaging.io import load_image as f",
        "prepared": "from app.imaging.prepared_folder import load_prepared as f",
        "copy": "from app.pipeline.run.inputs import copy_atomic as c\n"
        "f = lambda p: c(p, p.parent / 'copy.bin')",
    }[what]
    script = (
        f"import sys\nfrom pathlib import Path\n{code}\n"
        "from app.core.errors import StepwiseError\n"
        "try:\n    f(Path(sys.argv[1]))\n"
        "except StepwiseError as exc:\n    print(exc.user_message())\n    sys.exit(2)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script, str(path)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )


@pytest.mark.parametrize(
    ("what", "name"),
    [
        ("sha256", "checkpoints/step_005.bin"),
        ("sha256", "conditioning.bin"),
        ("tensors", "init_latent.bin"),
        ("picture", "prepared/input.png"),
        ("prepared", "prepared/prepare.json"),
        ("copy", "inputs/image.png"),
    ],
)
def test_a_fifo_in_a_run_folder_is_refused_by_name(tmp_path: Path, what: str, name: str) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    done = _reader(what, tmp_path / "prepared" if what == "prepared" else path)
    said = _clean(done, 2)
    assert name.split("/")[-1] in said and "FIFO" in said, said


def test_status_with_a_fifo_checkpoint_ends(tmp_path: Path) -> None:
    from app.pipeline.job.spec import JobSpec, ModelFiles
    from app.pipeline.run.folder import create_run

    spec = JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="a red house")
    run = create_run(tmp_path, spec, tmp_path / "run")
    checkpoints = run.dir / "checkpoints"
    checkpoints.mkdir()
    (checkpoints / "metadata.json").write_text(
        '{"checkpoints": {"5": {"file": "step_005.bin", "sha256": "' + "0" * 64 + '"}}}'
    )
    os.mkfifo(checkpoints / "step_005.bin")
    _clean(run_cli("status", run.dir, timeout=TIMEOUT_S), 0)


@pytest.mark.parametrize("entry", ["queue", "queue/damaged"])
def test_a_file_where_the_queue_keeps_a_folder_is_a_message(entry: str) -> None:
    where = app_paths().data_dir / entry
    where.parent.mkdir(parents=True, exist_ok=True)
    if entry == "queue/damaged":  # a damaged database, so the store moves it there
        (where.parent / "queue.db").write_bytes(b"not a database" * 400)
    where.write_text("mine")
    said = _clean(run_cli("queue", "list", timeout=TIMEOUT_S), 0, 1)
    assert str(where) in said, said
    assert where.read_text() == "mine"


@pytest.mark.parametrize("command", [["queue", "list"], ["status", "--help"]])
def test_a_closed_pipe_ends_quietly(command: list[str]) -> None:
    if command[0] == "queue":
        from app.pipeline.job.spec import JobSpec, ModelFiles
        from app.pipeline.queue.jobs import JobQueue

        spec = JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="x")
        JobQueue(app_paths()).add([spec] * 300)
    child = subprocess.Popen(
        [sys.executable, "-m", "app", *command],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.readline()  # `head -1`
    child.stdout.close()
    err = child.stderr.read().decode()
    code = child.wait(timeout=TIMEOUT_S)
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert code in (0, 141), code


def test_the_safe_layer_refuses_a_fifo(tmp_path: Path) -> None:
    from app.core.safe_files import read_bytes

    os.mkfifo(tmp_path / "f")
    with pytest.raises(SafeFileError, match="FIFO"):
        read_bytes(tmp_path / "f")


def test_a_file_where_the_stage_cache_goes_is_skipped(tmp_path: Path) -> None:
    from app.pipeline.cache.store import StageCache

    root = tmp_path / "stages"
    root.write_text("mine")
    (tmp_path / "conditioning.bin").write_bytes(b"x")
    StageCache(root, 1 << 20).put("0" * 64, "llm", {"c.bin": tmp_path / "conditioning.bin"})
    assert root.read_text() == "mine"
