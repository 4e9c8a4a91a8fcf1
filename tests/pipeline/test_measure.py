"""Measure this computer (app/pipeline/measure/): the choice, applying it and the Markdown
from a report; the driver line and ggml's buffer lines read; and `measure --quick` end to end
on lavapipe with the tiny models (one size, one step), then cancelled in the middle of a stage:
a partial report and no engine left. What is measured is not asserted (timings go to bench/)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import psutil
import pytest

from app.core.paths import app_paths
from app.core.settings import Settings
from app.pipeline.measure.probe import ggml_buffer_bytes
from app.pipeline.measure.report import apply_choice, choose, markdown
from app.pipeline.measure.session import make_setup, measure, parse_sizes

pytestmark = pytest.mark.timeout(2400)
GIB = 1024**3


def _report() -> dict:
    def row(stage: str, device: str, wall: float, **kw: object) -> dict:
        base = {"size": None, "flash_attention": None, "vae_tiling": None}
        return {"stage": stage, "device": device, "wall_s": wall, "planned_bytes": GIB,
                **base, **kw}  # fmt: skip

    return {
        "format": 1, "created": "now", "seconds": 1.0, "cancelled": False, "engine": "e",
        "models": {"note": "tiny", "diffusion": "d", "llm": "l", "vae": "v"},
        "steps": 2, "threads": 1, "sizes": [[64, 64]],
        "devices": [
            {"name": "vulkan0", "description": "GPU", "total_bytes": 8 * GIB,
             "free_bytes": 8 * GIB, "max_alloc_bytes": 2 * GIB, "fp16": True,
             "driver": {"shared memory": "32768", "int dot": "0"}},
            {"name": "cpu", "description": "CPU", "total_bytes": 16 * GIB,
             "free_bytes": 16 * GIB, "max_alloc_bytes": None, "fp16": False, "driver": None},
        ],
        "rows": [
            row("llm-encode", "vulkan0", 9.0), row("llm-encode", "cpu", 3.0),
            row("diffuse", "vulkan0", 2, size=[64, 64], flash_attention=False, s_per_step=0.5),
            row("diffuse", "vulkan0", 2, size=[64, 64], flash_attention=True, s_per_step=0.8),
            row("diffuse", "cpu", 9, size=[64, 64], flash_attention=False, s_per_step=4.0),
            row("vae-decode", "vulkan0", 1.0, size=[64, 64], vae_tiling=False,
                planned_bytes=20 * GIB),  # does not fit the card: tiled there
            row("vae-decode", "vulkan0", 2.0, size=[64, 64], vae_tiling=True),
            {"stage": "vae-decode", "device": "cpu", "size": [64, 64], "vae_tiling": False,
             "error": "out of memory"},
        ],
        "largest": {"vulkan0": [512, 512], "cpu": None},
    }  # fmt: skip


def test_choice_apply_and_markdown() -> None:
    report = _report()
    choice = choose(report)
    assert choice == {
        "diffusion_device": "vulkan0", "flash_attention": False, "llm_device": "cpu",
        "vae_device": "vulkan0", "vae_tiling": True,
    }  # fmt: skip
    report["choice"] = choice
    settings = Settings(job={"flash_attention": False})
    changes = apply_choice(settings, choice)
    assert [(c.name, c.new) for c in changes] == [
        ("diffusion_device", "vulkan0"),
        ("vae_device", "vulkan0"),
        ("vae_tiling", True),
    ]  # flash attention and the LLM's device were already so
    assert settings.job["diffusion_device"] == "vulkan0"
    text = markdown(report)
    assert "| vulkan0 | 64×64 | 0.5 | 0.8 | 1.60 |" in text
    assert "| vulkan0 | 9 | 3.00 |" in text  # llm-encode GPU ÷ CPU
    assert "shared memory: 32768; int dot: 0" in text
    assert "- vulkan0: 512×512" in text and "- cpu: unknown" in text
    assert "vae-decode on cpu: out of memory" in text
    assert "- vae_tiling = True" in text


def test_ggml_buffer_lines_and_sizes() -> None:
    log = (
        "flux compute buffer size: 10.00 MB(VRAM)\nflux compute buffer size: 99.00 MB(VRAM)\n"
        "flux params backend buffer size =  6.00 MB(VRAM)\nvae compute buffer size: 4.00 MB(RAM)"
    )
    assert ggml_buffer_bytes(log, "VRAM") == 16 * 1024 * 1024  # the first compute buffer
    assert ggml_buffer_bytes(log, "RAM") == 4 * 1024 * 1024
    assert parse_sizes("64x64, 32x48") == ((32, 48), (64, 64))
    with pytest.raises(Exception, match="is not a size"):
        parse_sizes("30x40")


def _engines_left() -> list[int]:
    return [p.pid for p in psutil.Process().children(recursive=True) if "sd-stage" in p.name()]


def test_measure_quick_on_lavapipe_then_cancelled(lavapipe: Path) -> None:
    paths = app_paths()
    setup = make_setup(
        paths, Settings(), lavapipe, quick=True, sizes=((32, 32),), devices=("vulkan0",), steps=1
    )
    seen: list[tuple[int, int, str, float | None]] = []
    report, md, js = measure(setup, paths, lambda *a: seen.append(a))
    assert not report["cancelled"] and json.loads(js.read_text()) == report
    assert md.read_text().startswith("# Stepwise: measure of this computer")
    stages = [(r["stage"], r["flash_attention"], r["vae_tiling"]) for r in report["rows"]]
    assert stages == [
        ("llm-encode", None, None), ("diffuse", False, None), ("diffuse", True, None),
        ("vae-decode", None, False), ("vae-decode", None, True),
    ]  # fmt: skip
    for row in report["rows"]:
        assert "error" not in row and row["wall_s"] > 0 and row["planned_bytes"] > 0, row
    assert all(r["s_per_step"] > 0 for r in report["rows"] if r["stage"] == "diffuse")
    vulkan = next(d for d in report["devices"] if d["name"] == "vulkan0")
    assert "shared memory" in (vulkan["driver"] or {}), vulkan
    assert report["choice"]["diffusion_device"] == "vulkan0"
    assert [s[0] for s in seen] == list(range(6)) and seen[-1][3] is not None  # an ETA
    assert _engines_left() == []

    cancel = threading.Event()

    def cancel_once_an_engine_runs(done: int, *_: object) -> None:
        if done == 0:  # the first stage: cancelled once its engine is there

            def wait() -> None:
                while not _engines_left():
                    cancel.wait(0.05)  # polled: the engine is started by the worker
                cancel.set()

            threading.Thread(target=wait, daemon=True).start()

    report, _md, _js = measure(setup, paths, cancel_once_an_engine_runs, cancel)
    assert report["cancelled"] and report["choice"] == {}
    assert report["rows"] == []  # the llm-encode in hand was stopped, nothing else ran
    assert _engines_left() == []


def test_a_windows_report_lists_what_the_release_was_not_checked_on(monkeypatch) -> None:
    """Issue 37: what wine cannot check (AMD's driver, SmartScreen, cp936, DPI) is asked of the
    user's first report on Windows, and only there."""
    from app.core import platform
    from app.pipeline.measure import report as report_module

    for windows in (True, False):
        monkeypatch.setattr(platform, "WINDOWS", windows)
        report = _report()
        report["system"] = report_module.system_facts()
        report["unchecked"] = list(report_module.unchecked_here())
        report["choice"] = {}
        text = report_module.markdown(report)
        assert "- python: " in text and "ansi_encoding" in text
        asked = "## Not checked before release" in text
        assert asked is windows
        if windows:
            assert "SmartScreen" in text and "cp936" in text and "2 GB" in text
