"""The short bad-entry matrix (bench/owned_files_matrix.py --short, issue 29): each entry of
app/pipeline/run/owned_entries × {fifo, folder, symlink, hard link, unreadable, missing}, with one
of the commands that open it: a clear message in time, no traceback, nothing written through
a link, nothing deleted that Stepwise did not make (defects 8, 9, 10)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from app.core.safe_files import SafeFileError, open_in_place, read_bytes
from tests.cli.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))

from owned_files_matrix import KINDS, World, cases, run_case

SHORT = cases(short=True)


@pytest.mark.timeout(90)
@pytest.mark.parametrize("case", SHORT, ids=[c.name for c in SHORT])
def test_a_bad_entry_is_a_clear_message(case, tmp_path: Path, tiny_models) -> None:
    world = World(
        (str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        tmp_path / "no-engine",
    )
    assert run_case(case, tmp_path, world) is None


def test_the_full_matrix_covers_every_entry_kind_and_command() -> None:
    full = cases()
    assert {c.kind for c in full} == set(KINDS)
    assert len(full) >= 100 and len(SHORT) >= 40


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """Defect 10: a FIFO in a run folder hung status, resume and the queue for ever."""
    fifo = tmp_path / "run.json"
    os.mkfifo(fifo)
    with pytest.raises(SafeFileError, match="FIFO"):
        read_bytes(fifo)


def test_a_hard_link_is_never_appended_to(tmp_path: Path) -> None:
    """Defect 9: `resume` appended the engine's argv to an outside file linked at
    logs/diffuse.log."""
    outside = tmp_path / "outside.txt"
    outside.write_text("mine")
    log = tmp_path / "logs" / "diffuse.log"
    log.parent.mkdir()
    os.link(outside, log)
    with pytest.raises(SafeFileError, match="hard link"):
        open_in_place(log, os.O_WRONLY | os.O_APPEND)
    from app.engine.process import StageProcess

    with pytest.raises(SafeFileError, match="hard link"):
        StageProcess([sys.executable, "-c", "pass"], log_path=log)
    assert outside.read_text() == "mine"
