"""What a stage key is computed from beyond the job (issue 17, 13): the engine build's input
hash (a rebuild of the same source and patches keeps every key), whether a run's records name
a set of keys (a run made before keys named the build keeps its old keys), and the keys as the
job alone decides them (what a user's own change to the job changes)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from pathlib import Path

from app.core.atomic import write_text_atomic
from app.core.errors import StepwiseError
from app.core.safe_files import read_bytes
from app.engine.stage import Stage
from app.pipeline.cache.keys import stage_keys
from app.pipeline.job.identity import model_identity
from app.pipeline.job.loras import lora_identities, prompt_loras
from app.pipeline.run.folder import STAGES, Run

BUILD_STAMP = "stepwise-build.json"  # native/build.py's STAMP_FILE, written after a build
MAX_STAMP_BYTES = 64 * 1024
# The builds this data folder has seen: a binary's sha256 -> "build:<input hash>", so the same
# bytes without their stamp beside them (a copy, an installed bundle) keep the build's keys and a
# suspended run stays resumable (issue 29, defect 5).
KNOWN_BUILDS_FILE = "engine-builds.json"
MAX_KNOWN_BUILDS = 64  # the newest; a build seen longer ago than that is its bare hash again
log = logging.getLogger(__name__)


def run_keys(run: Run, version: str, binary_version: Callable[[], str]) -> dict[str, str | None]:
    """The run's stage keys with the engine `version`; records the model identities in run."""
    spec = run.spec
    models = {
        "diffusion": model_identity(spec.models.diffusion),
        "llm": model_identity(spec.models.llm),
        "vae": model_identity(spec.models.vae),
    }
    run.models = models
    loras = lora_identities(prompt_loras(spec.prompt, spec.models.lora_dir))
    keys = stage_keys(spec, run.inputs_json(), models, version, loras)
    if version.startswith("build:") and keys_recorded(run, keys) is False:
        # A run made before keys named the build keeps its keys while the binary is the
        # same one (its checkpoints and finished stages stay valid).
        legacy = stage_keys(spec, run.inputs_json(), models, binary_version(), loras)
        if keys_recorded(run, legacy):
            return legacy
    return keys


def job_keys(run: Run) -> dict[str, str | None]:
    """The stage keys as the job alone decides them (the engine left out): what a user's
    change to the job changes."""
    spec = run.spec
    models = {
        "diffusion": model_identity(spec.models.diffusion),
        "llm": model_identity(spec.models.llm),
        "vae": model_identity(spec.models.vae),
    }
    loras = lora_identities(prompt_loras(spec.prompt, spec.models.lora_dir))
    return stage_keys(spec, run.inputs_json(), models, "", loras)


def build_stamp_key(engine: Path) -> str | None:
    """The input hash in native/build.py's stamp beside the binary (BUILD/bin/sd-stage →
    BUILD/stepwise-build.json), or None."""
    stamp = engine.resolve().parent.parent / BUILD_STAMP
    try:
        if stamp.stat().st_size > MAX_STAMP_BYTES:
            return None
        data = json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    key = data.get("key") if isinstance(data, dict) else None
    return key if isinstance(key, str) and key else None


def keys_recorded(run: Run, keys: Mapping[str, str | None]) -> bool | None:
    """Whether the run's records name these keys (None: it records none yet)."""
    recorded = [(run.stage(s).key, keys[s]) for s in STAGES if run.stage(s).key is not None]
    ck = run.stage(Stage.DIFFUSE).checkpoint_key
    if ck is not None:
        recorded.append((ck, keys[Stage.DIFFUSE]))
    if not recorded:
        return None
    return any(have == want for have, want in recorded)


def _known_builds(path: Path) -> dict[str, str]:
    """The map in `path`; {} when it is missing or damaged (it is a memory, never a record)."""
    try:
        data = json.loads(read_bytes(path, limit=MAX_STAMP_BYTES).decode("utf-8"))
    except FileNotFoundError:
        return {}
    except (StepwiseError, OSError, ValueError, RecursionError) as exc:
        log.warning("Ignoring %s (%s); it is rebuilt as builds are seen.", path, exc)
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        k: v
        for k, v in data.items()
        if isinstance(k, str) and isinstance(v, str) and v.startswith("build:")
    }


def engine_key_version(engine: Path, sha256: Callable[[], str], known: Path) -> str:
    """What a stage key names as the engine: "build:<input hash>" from the stamp beside the
    binary (remembered in `known` by the binary's sha256), or for a binary without a stamp the
    build it is a byte-identical copy of, else "sha256:<its hash>"."""
    stamp = build_stamp_key(engine)
    digest = sha256()
    builds = _known_builds(known)
    if stamp is None:
        return builds.get(digest, "sha256:" + digest)
    version = f"build:{stamp}"
    if builds.get(digest) != version:
        builds.pop(digest, None)
        builds[digest] = version
        newest = dict(list(builds.items())[-MAX_KNOWN_BUILDS:])
        try:
            known.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(known, json.dumps(newest, indent=1))
        except OSError as exc:  # a memory only: the run goes on with the stamp's version
            log.warning("Could not remember the engine build in %s: %s", known, exc)
    return version
