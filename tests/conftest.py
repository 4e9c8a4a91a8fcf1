"""Shared fixtures: every test gets its own STEPWISE_HOME; a developer's files are never touched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.engine.argv import NO_DRIVER_ENVS

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _engine_defaults_for_direct_runs() -> None:
    """Tests that start sd-stage with subprocess directly get the app's engine defaults too
    (app/engine/process.py ENGINE_ENV_DEFAULTS: OpenMP threads sleep rather than spin)."""
    from app.engine.process import ENGINE_ENV_DEFAULTS

    for name, value in ENGINE_ENV_DEFAULTS.items():
        os.environ.setdefault(name, value)


_engine_defaults_for_direct_runs()

REPO_ROOT = Path(__file__).resolve().parent.parent

# --- the tiers (pyproject.toml markers): `./test.sh fast` runs `-m "not slow and not engine"` ---

# A test whose fixtures (their whole closure) include one of these needs the built engine or
# the tiny models: it is marked `engine`, whatever its module says.
ENGINE_FIXTURES = frozenset({"sd_stage", "sd_stage_vulkan", "tiny_models"})
# test.sh sets it for the fast tier: an engine build or the tiny models asked for there is a
# test that should have been marked (a fixture not in ENGINE_FIXTURES, a direct call).
FAST_TIER_ENV = "STEPWISE_FAST_TIER"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if ENGINE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.engine)


def refuse_in_fast_tier(what: str) -> None:
    """Fails the asking test in the fast tier: it needs `what`, so it must be marked `engine`."""
    if os.environ.get(FAST_TIER_ENV):
        pytest.fail(
            f"the fast tier has no {what}: mark this test `engine` (pytest.mark.engine) or use "
            f"one of the fixtures {sorted(ENGINE_FIXTURES)}",
            pytrace=False,
        )


@pytest.fixture(autouse=True)
def stepwise_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "stepwise-home"
    monkeypatch.setenv("STEPWISE_HOME", str(home))
    monkeypatch.delenv("STEPWISE_PROGRAM", raising=False)  # hints say `python -m app` here
    return home


@pytest.fixture(autouse=True)
def no_engine_pause_hook_left():
    """A test that set the engine's pause hook (tests/engine/pause_hook) and failed before it
    held must not leave it to the next test's engines."""
    yield
    from tests.engine.pause_hook import PAUSE_AT_STEP_ENV

    os.environ.pop(PAUSE_AT_STEP_ENV, None)


# --- the real engine and the tiny models, built once per session and cached across runs ---

BUILD_TIMEOUT_S = 3600


def _build_engine(*extra: str) -> Path:
    """Builds sd-stage through the same command users run (never skipped: a failure fails)."""
    refuse_in_fast_tier("engine build")
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "native" / "build.py"), *extra],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    assert result.returncode == 0, (
        f"native/build.py {' '.join(extra)} failed:\n{result.stdout[-4000:]}\n"
        f"{result.stderr[-4000:]}"
    )
    path = Path(result.stdout.strip().splitlines()[-1])
    assert path.is_file(), f"build.py printed {path}, which does not exist"
    return path


def _given_engine(variable: str) -> Path | None:
    """STEPWISE_TEST_ENGINE[_VULKAN]=PATH: test that sd-stage (sd-cli beside it) instead of
    building one, e.g. the wine wrappers of scripts/windows_engine_tests.py."""
    given = os.environ.get(variable)
    if not given:
        return None
    path = Path(given)
    assert path.is_file(), f"{variable}={given} is not a file"
    return path


# The Vulkan loader finds no driver: ggml-vulkan makes no instance and lists no device, so the
# Vulkan build computes on the CPU alone, as the CPU build does (~8 ms more per process; with
# GGML_VK_VISIBLE_DEVICES= an instance is still made and lavapipe enumerated: ~150 ms).
NO_VULKAN_DRIVER = " ".join(f"{var}=/dev/null" for var in NO_DRIVER_ENVS)


def _vulkan_build_as_cpu(folder: Path) -> Path | None:
    """The Vulkan build (if built) behind sd-stage and sd-cli scripts that hide every Vulkan
    driver, with its build stamp beside them (the stage keys name the build); POSIX only."""
    import shutil
    import subprocess
    import sys

    if os.name != "posix":
        return None
    refuse_in_fast_tier("engine build")
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "native" / "build.py"), "--vulkan", "--test-hooks"]
        + ["--print-path"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 or not done.stdout.strip():
        return None
    real = Path(done.stdout.strip().splitlines()[-1])
    (folder / "bin").mkdir(parents=True, exist_ok=True)
    for name in ("sd-stage", "sd-cli"):
        script = folder / "bin" / name
        script.write_text(f'#!/bin/sh\n{NO_VULKAN_DRIVER} exec "{real.parent / name}" "$@"\n')
        script.chmod(0o755)
    stamp = real.parent.parent / "stepwise-build.json"
    if stamp.is_file():
        shutil.copy2(stamp, folder / stamp.name)
    return folder / "bin" / "sd-stage"


@pytest.fixture(scope="session")
def sd_stage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path of a CPU-only test build of sd-stage (`build.py --test-hooks`: sd-cli's
    SD_STAGE_DUMP_DIR and the SD_STAGE_TEST_OOM_* hooks compiled in); sd-cli (the reference)
    lies beside it. One engine build for the suite: the Vulkan test build with no Vulkan driver
    when there is one (scripts/setup_env.py test mode builds only it where Vulkan builds), else
    the CPU test build."""
    given = _given_engine("STEPWISE_TEST_ENGINE")
    if given is not None:
        return given
    wrapped = _vulkan_build_as_cpu(tmp_path_factory.mktemp("cpu-engine"))
    return wrapped if wrapped is not None else _build_engine("--test-hooks")


@pytest.fixture(scope="session")
def sd_stage_vulkan() -> Path:
    """The Vulkan test build (lavapipe in the suite)."""
    return _given_engine("STEPWISE_TEST_ENGINE_VULKAN") or _build_engine("--vulkan", "--test-hooks")


@pytest.fixture
def lavapipe(sd_stage_vulkan: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Vulkan engine with lavapipe listed (GGML_VK_VISIBLE_DEVICES=0: ggml skips CPU-type
    Vulkan devices otherwise); skips cleanly where no lavapipe ICD is installed."""
    import subprocess

    monkeypatch.setenv("GGML_VK_VISIBLE_DEVICES", "0")
    listing = subprocess.run(
        [str(sd_stage_vulkan), "--list-devices"], capture_output=True, timeout=120, check=False
    )
    if b"llvmpipe" not in listing.stdout.lower() and b"llvmpipe" not in listing.stderr.lower():
        pytest.skip("no lavapipe Vulkan device here")
    return sd_stage_vulkan


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory: pytest.TempPathFactory):
    """The deterministic tiny random-weight FLUX.2 klein model set (DiT, Qwen3 LLM, VAE)."""
    refuse_in_fast_tier("tiny models")
    from tests.models.generate import generate_models

    return generate_models(tmp_path_factory.mktemp("tiny-models"))


@pytest.fixture
def tiny_form(tiny_models):
    """make(prompt, steps, **values) -> a JobForm on the tiny models (tests/models/forms.py)."""
    from tests.models.forms import tiny_job_form

    def make(prompt: str = "a blue door", steps: int = 4, **values: object):
        return tiny_job_form(tiny_models, prompt, steps, **values)

    return make
