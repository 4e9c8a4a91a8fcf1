from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from app.core.paths import app_paths
from app.core.settings import SETTINGS_VERSION, Settings, load_settings, save_settings


def test_round_trip(tmp_path: Path) -> None:
    s = Settings()
    s.job = {"diffusion_model": "D:/files/FLUX.2/flux-2-klein-9b-Q4_0.gguf", "steps": 10}
    s.paint.overlay_opacity = 0.25
    s.recent_files = ["a.png"]
    path = tmp_path / "settings.json"
    save_settings(path, s)
    again = load_settings(path)
    assert again == s
    assert not list(tmp_path.glob(".*.tmp"))


def test_damaged_file_falls_back_with_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b'{"version": 1, "models": {"vae": "x"')
    with caplog.at_level(logging.WARNING):
        s = load_settings(path)
    assert s == Settings()
    assert "damaged" in caplog.text
    assert (tmp_path / "settings.json.bad").exists()


def test_wrong_types_keep_defaults_per_field(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps(
            {
                "version": 2,
                "cache_limit_mb": "big",
                "paint": {"brush_size": "ten", "overlay_opacity": 0.3},
                "job": {"steps": 6, "vae_model": "v.safetensors", "bad": [1]},
                "unknown": 1,
            }
        )
    )
    with caplog.at_level(logging.WARNING):
        s = load_settings(path)
    assert s.cache_limit_mb == Settings().cache_limit_mb
    assert s.paint.brush_size == Settings().paint.brush_size
    assert s.paint.overlay_opacity == 0.3
    assert s.job == {"steps": 6, "vae_model": "v.safetensors"}
    assert "paint.brush_size" in caplog.text and "job.bad" in caplog.text


def test_stepwise_home_relocates_everything(tmp_path: Path) -> None:
    p = app_paths({"STEPWISE_HOME": str(tmp_path)})
    for folder in (p.config_dir, p.data_dir, p.cache_dir, p.log_dir):
        assert tmp_path in folder.parents
    assert not p.config_dir.exists()  # nothing is created until ensure()
    p.ensure()
    assert p.config_dir.is_dir()


V1_FILE = {
    "version": 1,
    "language": "zh_CN",
    "models": {"diffusion_model": "d.gguf", "llm": "l.gguf", "vae": "v.st", "lora_dir": "L"},
    "generation": {
        "prompt": "a fox",
        "steps": 6,
        "seed": 9,
        "cfg_scale": 1.5,
        "sampler": "heun",
        "preview": "vae",
        "random_seed": True,
    },
    "devices": {"llm": "cpu", "diffusion": "vulkan0", "vae": "vulkan1", "vae_tiling": True},
    "paint": {
        "brush_size": 12,
        "align_mode": "crop",
        "fill_mode": "blur",
        "only_masked": True,
        "region_padding": 32,
        "feather": 4,
    },
}


def test_a_version_1_file_migrates_into_job(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(V1_FILE))
    s = load_settings(path)
    assert s.version == SETTINGS_VERSION
    assert s.job == {
        "diffusion_model": "d.gguf",
        "llm_model": "l.gguf",
        "vae_model": "v.st",
        "lora_dir": "L",
        "prompt": "a fox",
        "steps": 6,
        "seed": -1,  # random_seed: True
        "cfg_scale": 1.5,
        "sampler": "heun",
        "preview": "vae",
        "llm_device": "cpu",
        "diffusion_device": "vulkan0",
        "vae_device": "vulkan1",
        "vae_tiling": True,
        "align": "crop",
        "fill": "blur",
        "only_masked": True,
        "padding": 32,
        "feather": 4,
    }
    assert s.paint.brush_size == 12
    assert not hasattr(s, "devices") and not hasattr(s.paint, "align_mode")
    assert s.language == "zh_CN"
    save_settings(path, s)
    again = load_settings(path)
    assert again == s and json.loads(path.read_text())["version"] == SETTINGS_VERSION


def test_a_saved_old_default_follows_the_new_default_and_a_choice_is_kept(
    tmp_path: Path,
) -> None:
    """Colour match was on by default up to version 2, off in version 3, on from version 4.
    Versions 2 and 3 saved every job value, so a value equal to its day's default is that
    default (dropped: the new default applies); any other value was a choice (kept)."""
    from app.pipeline.job.params import clean_values

    path = tmp_path / "settings.json"

    def loaded(version: int, job: dict) -> dict:
        path.write_text(json.dumps({"version": version, "job": job}))
        return load_settings(path).job

    assert loaded(3, {"color_match": "off", "steps": 6}) == {"steps": 6}  # version 3's default
    assert loaded(3, {"color_match": "on"}) == {"color_match": "on"}  # a choice then
    assert loaded(2, {"color_match": "off"}) == {"color_match": "off"}  # a choice then
    assert loaded(2, {"color_match": "on", "steps": 6}) == {"steps": 6}  # version 2's default
    # A version-4 file's "off" is a choice (the default is on): kept.
    assert loaded(SETTINGS_VERSION, {"color_match": "off"}) == {"color_match": "off"}
    # What the job form then shows: the new default where the old one was dropped.
    assert clean_values(loaded(3, {"color_match": "off"}))[0]["color_match"] == "on"
    assert clean_values(loaded(2, {"color_match": "off"}))[0]["color_match"] == "off"
    save_settings(path, load_settings(path))
    assert json.loads(path.read_text())["version"] == SETTINGS_VERSION


def test_job_keeps_plain_values_only(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 2, "job": {"steps": 5, "bad": [1], "prompt": "x"}}))
    with caplog.at_level(logging.WARNING):
        s = load_settings(path)
    assert s.job == {"steps": 5, "prompt": "x"}
    assert "job.bad" in caplog.text
