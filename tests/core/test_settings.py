from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from app.core.paths import app_paths
from app.core.settings import Settings, load_settings, save_settings


def test_round_trip(tmp_path: Path) -> None:
    s = Settings()
    s.models.diffusion_model = "D:/files/FLUX.2/flux-2-klein-9b-Q4_0.gguf"
    s.generation.steps = 10
    s.paint.overlay_opacity = 0.25
    s.recent_files = ["a.png"]
    path = tmp_path / "settings.json"
    save_settings(path, s)
    again = load_settings(path)
    assert again == s
    assert not list(tmp_path.glob(".*.tmp"))


def test_defaults_suit_klein() -> None:
    s = Settings()
    assert s.generation.cfg_scale == 1.0
    assert s.generation.steps == 4
    assert s.generation.sampler == "euler"
    assert s.devices.llm == "cpu"


def test_damaged_file_falls_back_with_warning(tmp_path: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b'{"version": 1, "models": {"vae": "x"')
    with caplog.at_level(logging.WARNING):
        s = load_settings(path)
    assert s == Settings()
    assert "damaged" in caplog.text
    assert (tmp_path / "settings.json.bad").exists()


def test_wrong_types_keep_defaults_per_field(tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 1, "generation": {"steps": "ten", "seed": 7},
                                "models": {"vae": "v.safetensors"}, "unknown": 1}))
    with caplog.at_level(logging.WARNING):
        s = load_settings(path)
    assert s.generation.steps == 4
    assert s.generation.seed == 7
    assert s.models.vae == "v.safetensors"
    assert "generation.steps" in caplog.text


def test_stepwise_home_relocates_everything(tmp_path: Path) -> None:
    p = app_paths({"STEPWISE_HOME": str(tmp_path)})
    for folder in (p.config_dir, p.data_dir, p.cache_dir, p.log_dir):
        assert tmp_path in folder.parents
    assert not p.config_dir.exists()  # nothing is created until ensure()
    p.ensure()
    assert p.config_dir.is_dir()
