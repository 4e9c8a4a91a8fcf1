"""bench/gpu_check.py --quick end to end: the one GPU check's table, on lavapipe with the tiny
models and the suite's Vulkan engine (no build), has every row with a usable value.

What is measured is not asserted (timings belong in bench/); what is asserted is that each
measurement happened: the ratios are finite and positive, the memory rows name where their
figure came from, and the fitted size is aligned and of the user's aspect.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.devices import list_devices
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.timeout(3600)  # lavapipe runs every GPU stage on the shared CPUs

RUN_TIMEOUT_S = 3000
STAGE_ROWS = ("llm", "step:tiny:user", "step:tiny:square", "preview:tiny")
MEMORY_SOURCES = {"nvidia-smi", "vk-memory-budget", "ggml-log"}
ASPECT = 352 / 864


@pytest.fixture(scope="module")
def quick_report(sd_stage_vulkan: Path, tiny_models, tmp_path_factory) -> tuple[dict, str]:
    env = {**os.environ, "GGML_VK_VISIBLE_DEVICES": "0"}
    if not any(d.name.startswith("Vulkan") for d in list_devices(sd_stage_vulkan, env)):
        pytest.skip("no Vulkan device (no ICD such as Mesa's lavapipe installed)")
    out = tmp_path_factory.mktemp("gpu-check") / "table.json"
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / "gpu_check.py"), "--quick",
         "--engine", str(sd_stage_vulkan), "--models-dir", str(tiny_models.diffusion.parents[1]),
         "--json", str(out)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    print(done.stdout)  # the table (pytest -s shows it)
    return json.loads(out.read_text(encoding="utf-8")), done.stdout


def test_every_row_is_there_and_printed(quick_report) -> None:
    report, table = quick_report
    ids = [r["id"] for r in report["rows"]]
    assert report["mode"] == "quick" and report["device"] == "vulkan0"
    assert ids.count("llm:tiny") == 1
    for row in ("step:tiny:user", "step:tiny:square", "preview:tiny", "fits:tiny"):
        assert ids.count(row) == 1, ids
    memory = {i for i in ids if i.startswith("memory:tiny:")}
    assert memory == {
        "memory:tiny:llm-encode:-",
        "memory:tiny:diffuse:32x80", "memory:tiny:diffuse:64x64",
        "memory:tiny:vae-decode:64x64",
    }  # fmt: skip
    for row_id in ids:
        assert row_id[:28] in table  # the printed table has every row


def test_the_ratios_are_finite_and_positive(quick_report) -> None:
    report, _ = quick_report
    for row in report["rows"]:
        if row["id"].startswith("fits:"):
            continue
        assert isinstance(row["ratio"], float), row
        assert math.isfinite(row["ratio"]) and row["ratio"] > 0, row
        assert row["ratio"] == pytest.approx(row["a"] / row["b"]), row
        if row["id"].startswith("memory:"):
            assert row["source"] in MEMORY_SOURCES, row
    preview = next(r for r in report["rows"] if r["id"] == "preview:tiny")
    assert preview["previews"] >= 0 and preview["decoder"] == "t1-low"


def test_the_fitted_size_is_aligned_and_of_the_users_aspect(quick_report) -> None:
    report, _ = quick_report
    fits = next(r for r in report["rows"] if r["id"] == "fits:tiny")
    width, height = fits["a"], fits["b"]
    assert fits["ratio"] is None  # a size, not a ratio
    assert (fits["budget_bytes"], fits["cap_bytes"]) == (8 << 30, 2 << 30)
    assert width % 16 == 0 and height % 16 == 0, fits
    assert 16 <= width < height <= 2048, fits  # the search's longest side is 2048
    assert abs(width / height - ASPECT) <= 16 / height, fits
