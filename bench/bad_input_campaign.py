"""Bad input campaign (issue 17): bad command lines and API calls, each in a fresh folder.

    python bench/bad_input_campaign.py [--short] [--sd-stage PATH] [--work DIR] [--json]

Values (NaN, infinities, out of range, wrong kind), prompts (invalid UTF-8, NUL, lone
surrogates, too long), paths (missing, folders, FIFOs, the wrong model kind, a non-executable
engine), folders (under a file, a folder of the user's own, an existing run, odd entries in a
run), links inside a run folder, concurrent runs into one folder, and PNG chunks (deep JSON,
NaN, garbage). The command lines run `python -m app` in a child process with its own
STEPWISE_HOME; the API calls run the real Pipeline in this process. The tiny random-weight
models and the real sd-stage are used where a case needs a run.

Counted per case: a traceback (a Python traceback in the output, or an exception that is not a
StepwiseError from an API call), "bug in Stepwise" (the text, or a RunFailed of kind BUG), a
user's file changed (every file the case's user folder, the models and link targets hold is
hashed before and after), and whether a refusal came before the first stage (no stage started).
Exit 0 when the first three are 0 and every refusal came before the first stage.
tests/cli/test_bad_input_campaign.py runs the --short set.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

CLI_TIMEOUT_S = 300.0
PROMPT = "a red house"
SMALL = ["--steps", "1", "-W", "64", "-H", "64", "-t", "1"]


@dataclass
class Outcome:
    name: str
    group: str
    refused: bool = False
    before_first_stage: bool = True
    traceback: bool = False
    bug: bool = False
    user_files_changed: list[str] = field(default_factory=list)
    detail: str = ""


@dataclass
class World:
    """What the cases share: the models, the engine, the photo and mask, a scratch root."""

    root: Path
    engine: Path
    models: Any  # app.engine.tiny_models.ModelSet
    image: Path
    mask: Path

    def model_args(self, **override: str) -> list[str]:
        files = {
            "--diffusion-model": str(self.models.diffusion),
            "--llm": str(self.models.llm),
            "--vae": str(self.models.vae),
            "--engine": str(self.engine),
        }
        files.update(override)
        return [word for pair in files.items() for word in pair]


@dataclass
class Case:
    name: str
    group: str
    run: Callable[[World, Path], Outcome]  # (world, the case's own folder)
    short: bool = False


# --- observing ---------------------------------------------------------------------------------
def _digest_tree(paths: list[Path]) -> dict[str, str]:
    """sha256 of every regular file under `paths` (links are not followed, but a link's own
    target is hashed when it is one of `paths`)."""
    out: dict[str, str] = {}
    for base in paths:
        if not os.path.lexists(base):
            out[str(base)] = "absent"
            continue
        todo = [base]
        while todo:
            p = todo.pop()
            if p.is_symlink():
                out[str(p)] = "link->" + os.readlink(p)
            elif p.is_dir():
                todo += sorted(p.iterdir())
                out[str(p)] = "dir"
            elif p.is_file():
                out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                out[str(p)] = "special"
    return out


def _changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


def cli(world: World, home: Path, *args: str | bytes, timeout: float = CLI_TIMEOUT_S) -> tuple:
    """(exit code, stdout, stderr) of `python -m app ARGS` with its own STEPWISE_HOME."""
    env = {**os.environ, "STEPWISE_HOME": str(home)}
    argv = [os.fsencode(sys.executable), b"-m", b"app"]
    argv += [a if isinstance(a, bytes) else os.fsencode(a) for a in args]
    try:
        done = subprocess.run(argv, cwd=REPO, capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return 124, "", "timed out (a hang counts as a traceback)\nTraceback"
    return (
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )


def judge_cli(
    name: str, group: str, result: tuple, watched: dict[str, str], after: dict[str, str]
) -> Outcome:
    code, out, err = result
    text = out + err
    started = any(line.endswith("] started") for line in out.splitlines())
    return Outcome(
        name,
        group,
        refused=code != 0,
        before_first_stage=not started,
        traceback="Traceback" in text,
        bug="bug in Stepwise" in text,
        user_files_changed=_changed(watched, after),
        detail=next((ln for ln in err.splitlines() if ln.startswith("error:")), err[-200:]),
    )


def cli_case(
    name: str,
    group: str,
    words: Callable[[World, Path], list],
    *,
    short: bool = False,
    setup: Callable[[World, Path], list[Path]] | None = None,
) -> Case:
    """A `run`/`resume` command line; `setup` makes the case's files and names what to watch."""

    def go(world: World, here: Path) -> Outcome:
        watched_paths = (setup(world, here) if setup else []) + [world.models.diffusion.parent]
        before = _digest_tree(watched_paths)
        result = cli(world, here / "home", *words(world, here))
        return judge_cli(name, group, result, before, _digest_tree(watched_paths))

    return Case(name, group, go, short)


def run_words(
    *extra: str | bytes,
    prompt: str | bytes = PROMPT,
    run_dir: str = "run",
    models: dict[str, str] | None = None,
) -> Callable[[World, Path], list]:
    def words(world: World, here: Path) -> list:
        override = {
            k: (str(here / v) if not os.path.isabs(v) else v) for k, v in (models or {}).items()
        }
        return [
            "run",
            *world.model_args(**override),
            "-p",
            prompt,
            "--run-dir",
            str(here / run_dir),
            *SMALL,
            *extra,
        ]

    return words


# --- API cases ---------------------------------------------------------------------------------
def api_case(
    name: str,
    group: str,
    body: Callable[[World, Path], Iterator[Any]],
    *,
    short: bool = False,
    watch: Callable[[World, Path], list[Path]] | None = None,
) -> Case:
    """`body` drives the real Pipeline; it yields events (or raises). A StepwiseError raised is
    a refusal; any other exception is a traceback."""

    def go(world: World, here: Path) -> Outcome:
        from app.core.errors import StepwiseError
        from app.pipeline import events as ev
        from app.pipeline.failures import FailureKind

        out = Outcome(name, group)
        watched = (watch(world, here) if watch else []) + [world.models.diffusion.parent]
        before = _digest_tree(watched)
        old_home = os.environ.get("STEPWISE_HOME")
        os.environ["STEPWISE_HOME"] = str(here / "home")
        try:
            events = list(body(world, here))
            failed = [e for e in events if isinstance(e, ev.RunFailed)]
            out.refused = bool(failed) or any(e == "refused" for e in events)
            out.before_first_stage = not any(isinstance(e, ev.StageStarted) for e in events)
            out.bug = any(e.kind is FailureKind.BUG for e in failed)
            out.detail = failed[-1].message if failed else ""
            if any(e == "accepted" for e in events):
                out.refused = False
        except StepwiseError as exc:
            out.refused = True
            out.detail = exc.user_message()
            out.bug = "bug in Stepwise" in out.detail
        except Exception as exc:  # counted, that is the point
            out.traceback = True
            out.detail = f"{type(exc).__name__}: {exc}"
        finally:
            if old_home is None:
                os.environ.pop("STEPWISE_HOME", None)
            else:
                os.environ["STEPWISE_HOME"] = old_home
        out.user_files_changed = _changed(before, _digest_tree(watched))
        return out

    return Case(name, group, go, short)


def _pipeline(world: World, here: Path) -> Any:
    from app.core.paths import app_paths
    from app.pipeline.runner import Pipeline

    return Pipeline(
        app_paths({"STEPWISE_HOME": str(here / "home")}), world.engine, cache_limit_mb=64
    )


def _spec(world: World, **kw: Any) -> Any:
    from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles

    models = ModelFiles(str(world.models.diffusion), str(world.models.llm), str(world.models.vae))
    base: dict[str, Any] = {
        "models": models,
        "prompt": PROMPT,
        "steps": 1,
        "width": 64,
        "height": 64,
        "devices": DeviceChoice(threads=1),
    }
    base.update(kw)
    return JobSpec(**base)


def _made_run(world: World, here: Path) -> Path:
    """A run folder made through the API (no stage run yet)."""
    return _pipeline(world, here).create_run(_spec(world), here / "run").dir


def _execute(world: World, here: Path, run_dir: Path) -> Iterator[Any]:
    from app.pipeline.control import RunControl

    yield from _pipeline(world, here).execute(run_dir, RunControl())


def _edit_run_json(run_dir: Path, **spec_changes: Any) -> None:
    from app.pipeline.run.format import checksum

    path = run_dir / "run.json"
    data = json.loads(path.read_text())
    data["spec"].update(spec_changes)
    data["checksum"] = checksum(data)
    path.write_text(json.dumps(data))


def resume_case(
    name: str,
    group: str,
    mutate: Callable[[World, Path, Path], list[Path]],
    *,
    short: bool = False,
    via: str = "cli",
) -> Case:
    """A run made through the API, then `mutate(world, here, run_dir)` (returns what to watch:
    the user's files a link points at), then `resume` (CLI) or execute() (API)."""

    if via == "api":

        def body(world: World, here: Path) -> Iterator[Any]:
            yield from _execute(world, here, here / "run")

        def watch(world: World, here: Path) -> list[Path]:
            return mutate(world, here, _made_run(world, here))

        return api_case(name, group, body, short=short, watch=watch)

    def setup(world: World, here: Path) -> list[Path]:
        return mutate(world, here, _made_run(world, here))

    return cli_case(
        name,
        group,
        lambda w, h: ["resume", str(h / "run"), "--engine", str(w.engine)],
        short=short,
        setup=setup,
    )


# --- the cases ---------------------------------------------------------------------------------
def _user_files(here: Path, *names: str) -> list[Path]:
    folder = here / "user"
    for name in names:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(b"the user's own " + name.encode())
    return [folder]


def _own_folder(*entries: str) -> Callable[[World, Path], list[Path]]:
    def setup(world: World, here: Path) -> list[Path]:
        for name in entries:
            (here / "run" / name).parent.mkdir(parents=True, exist_ok=True)
            (here / "run" / name).write_bytes(b"the user's own " + name.encode())
        return [here / "run"]

    return setup


def _file_at(rel: str, data: bytes) -> Callable[[World, Path], list[Path]]:
    def setup(world: World, here: Path) -> list[Path]:
        (here / rel).parent.mkdir(parents=True, exist_ok=True)
        (here / rel).write_bytes(data)
        return [here / rel]

    return setup


def _dir_at(rel: str) -> Callable[[World, Path], list[Path]]:
    def setup(world: World, here: Path) -> list[Path]:
        (here / rel).mkdir(parents=True, exist_ok=True)
        return [here / rel]

    return setup


def _copy_model(kind: str, rel: str) -> Callable[[World, Path], list[Path]]:
    def setup(world: World, here: Path) -> list[Path]:
        shutil.copyfile(getattr(world.models, kind), here / rel)
        return [here / rel]

    return setup


def _fifo(rel: str) -> Callable[[World, Path], list[Path]]:
    def setup(world: World, here: Path) -> list[Path]:
        os.mkfifo(here / rel)
        return []

    return setup


def _mut_entry_file(entry: str) -> Callable[[World, Path, Path], list[Path]]:
    def mutate(world: World, here: Path, run_dir: Path) -> list[Path]:
        path = run_dir / entry
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
        path.write_bytes(b"not a folder")
        return []

    return mutate


def _mut_lock_folder(world: World, here: Path, run_dir: Path) -> list[Path]:
    (run_dir / ".lock").unlink(missing_ok=True)
    (run_dir / ".lock").mkdir()
    return []


def _mut_link(entry: str, target_kind: str) -> Callable[[World, Path, Path], list[Path]]:
    """run_dir/entry becomes a link to the user's file or folder (or a path not there yet)."""

    def mutate(world: World, here: Path, run_dir: Path) -> list[Path]:
        user = here / "user"
        user.mkdir(exist_ok=True)
        target = user / "target"
        if target_kind == "file":
            target.write_bytes(b"the user's own file")
        elif target_kind == "dir":
            target.mkdir()
            (target / "keep.txt").write_bytes(b"the user's own file")
        link = run_dir / entry
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_dir() and not link.is_symlink():
            shutil.rmtree(link)
        else:
            link.unlink(missing_ok=True)
        link.symlink_to(target)
        return [user]

    return mutate


def _mut_spec(**changes: Any) -> Callable[[World, Path, Path], list[Path]]:
    def mutate(world: World, here: Path, run_dir: Path) -> list[Path]:
        _edit_run_json(run_dir, **changes)
        return []

    return mutate


def _mut_garbage_manifest(world: World, here: Path, run_dir: Path) -> list[Path]:
    (run_dir / "run.json").write_bytes(b"{ not json")
    (run_dir / "run.json.bak").unlink(missing_ok=True)
    return []


def _mut_stale_checkpoints(world: World, here: Path, run_dir: Path) -> list[Path]:
    from app.pipeline.run.folder import open_run

    folder = run_dir / "checkpoints"
    folder.mkdir(exist_ok=True)
    step = folder / "step_001.bin"
    step.write_bytes(b"x_t after step 1")
    digest = hashlib.sha256(step.read_bytes()).hexdigest()
    meta = {"checkpoints": {"1": {"file": step.name, "sha256": digest}}}
    (folder / "metadata.json").write_text(json.dumps(meta))
    run = open_run(run_dir)
    run.stage("diffuse").checkpoint_key = "made by another engine build"
    run.save()
    return [folder]  # the checkpoints are the user's work: they must stay


def _api_create(**kw: Any) -> Callable[[World, Path], Iterator[Any]]:
    def body(world: World, here: Path) -> Iterator[Any]:
        _pipeline(world, here).create_run(_spec(world, **kw), here / "run")
        yield "accepted"

    return body


def _api_update(**changes: Any) -> Callable[[World, Path], Iterator[Any]]:
    def body(world: World, here: Path) -> Iterator[Any]:
        run_dir = _made_run(world, here)
        _pipeline(world, here).update_run(run_dir, changes)
        yield "accepted"

    return body


def _png_case(name: str, payload: bytes, short: bool = False) -> Case:
    def body(world: World, here: Path) -> Iterator[Any]:
        import numpy as np

        from app.imaging.io import save_png_atomic
        from app.imaging.png_params import STEPWISE_KEY, read_png_parameters, with_text_chunks
        from app.pipeline.job.params import PARAMS, clean_values

        plain = here / "plain.png"
        save_png_atomic(plain, np.zeros((8, 8, 3), np.uint8))
        key = STEPWISE_KEY.encode("latin-1")
        chunk_body = key + b"\0\0\0\0\0" + payload  # iTXt, uncompressed, no language
        import struct
        import zlib

        chunk = (
            struct.pack(">I", len(chunk_body))
            + b"iTXt"
            + chunk_body
            + struct.pack(">I", zlib.crc32(b"iTXt" + chunk_body))
        )
        png = here / "carrier.png"
        png.write_bytes(with_text_chunks(plain.read_bytes(), [chunk]))
        values, bad = clean_values(read_png_parameters(png).spec)
        finite = all(math.isfinite(values[p.name]) for p in PARAMS if p.kind is float)
        yield "refused" if finite else "accepted"

    return api_case(name, "png", body, short=short)


def cases() -> list[Case]:
    bad_utf8 = b"a red \xff\xfe house"
    c: list[Case] = [
        # values
        cli_case("strength nan", "values", run_words("--strength", "nan"), short=True),
        cli_case("strength inf", "values", run_words("--strength=inf")),
        cli_case("strength -inf", "values", run_words("--strength=-inf")),
        cli_case("cfg nan", "values", run_words("--cfg-scale", "nan"), short=True),
        cli_case("cfg inf", "values", run_words("--cfg-scale=inf")),
        cli_case("strength 1.5", "values", run_words("--strength", "1.5")),
        cli_case("steps 0", "values", run_words("--steps", "0")),
        cli_case("steps 100000", "values", run_words("--steps", "100000")),
        cli_case("steps abc", "values", run_words("--steps", "abc")),
        cli_case("width 0", "values", run_words("-W", "0")),
        cli_case("width 8", "values", run_words("-W", "8")),
        cli_case("height 100000", "values", run_words("-H", "100000")),
        cli_case("seed -5", "values", run_words("--seed", "-5")),
        cli_case("seed 2^40", "values", run_words("--seed", str(2**40))),
        cli_case("sampler bogus", "values", run_words("--sampling-method", "bogus")),
        cli_case("scheduler bogus", "values", run_words("--scheduler", "bogus")),
        cli_case("preview nope", "values", run_words("--preview", "nope")),
        cli_case("vae tile 0", "values", run_words("--vae-tile-size", "0")),
        cli_case("threads -1", "values", run_words("--threads=-1")),
        cli_case("max alloc -1", "values", run_words("--max-alloc-mb=-1")),
        cli_case("padding -3", "values", run_words("--padding=-3")),
        cli_case("feather huge", "values", run_words("--feather", "100000")),
        cli_case("masked target huge", "values", run_words("--masked-target", "999999")),
        cli_case("align nope", "values", run_words("--align", "nope")),
        cli_case("device vulkan9", "values", run_words("--diffusion-device", "vulkan9")),
        # prompts
        cli_case("prompt invalid utf-8", "prompts", run_words(prompt=bad_utf8), short=True),
        cli_case(
            "negative invalid utf-8", "prompts", run_words("-n", bad_utf8, "--cfg-scale", "2")
        ),
        cli_case("prompt 100 kB", "prompts", run_words(prompt="a red house " * 9000)),
        api_case("API prompt NUL", "prompts", _api_create(prompt="a red\x00house"), short=True),
        api_case("API prompt lone surrogate", "prompts", _api_create(prompt="a \ud800 house")),
        api_case("API negative NUL", "prompts", _api_create(negative_prompt="x\x00")),
        api_case("API strength nan", "values", _api_create(strength=math.nan)),
        api_case("API cfg inf", "values", _api_create(cfg_scale=math.inf)),
        api_case("API update sampler bogus", "values", _api_update(sampler="bogus")),
        api_case("API update strength nan", "values", _api_update(strength=math.nan)),
        api_case("API image path NUL", "paths", _api_create(image="a\x00.png")),
        # paths
        cli_case(
            "missing diffusion model", "paths", run_words(models={"--diffusion-model": "nope.gguf"})
        ),
        cli_case(
            "diffusion model is a folder",
            "paths",
            run_words(models={"--diffusion-model": "adir"}),
            setup=_dir_at("adir"),
        ),
        cli_case(
            "vae is a text file",
            "paths",
            run_words(models={"--vae": "v.safetensors"}),
            setup=_file_at("v.safetensors", b"not a model"),
            short=True,
        ),
        cli_case(
            "llm is empty",
            "paths",
            run_words(models={"--llm": "l.gguf"}),
            setup=_file_at("l.gguf", b""),
        ),
        cli_case(
            "diffusion model is a FIFO",
            "paths",
            run_words(models={"--diffusion-model": "fifo"}),
            setup=_fifo("fifo"),
        ),
        cli_case(
            "vae given as diffusion model",
            "paths",
            run_words(models={"--diffusion-model": "vae.safetensors"}),
            setup=_copy_model("vae", "vae.safetensors"),
        ),
        cli_case(
            "llm given as vae",
            "paths",
            run_words(models={"--vae": "llm.gguf"}),
            setup=_copy_model("llm", "llm.gguf"),
        ),
        cli_case("missing init image", "paths", run_words("-i", "/nonexistent/photo.png")),
        cli_case(
            "init image is a folder",
            "paths",
            lambda w, h: run_words("-i", str(h / "adir"))(w, h),
            setup=_dir_at("adir"),
        ),
        cli_case(
            "init image is text",
            "paths",
            lambda w, h: run_words("-i", str(h / "t.png"))(w, h),
            setup=_file_at("t.png", b"not a picture"),
        ),
        cli_case(
            "mask of another size",
            "paths",
            lambda w, h: run_words("-i", str(w.image), "--mask", str(h / "m.png"))(w, h),
            setup=lambda w, h: _small_mask(h / "m.png"),
        ),
        cli_case(
            "missing mask",
            "paths",
            lambda w, h: run_words("-i", str(w.image), "--mask", "/nonexistent/m.png")(w, h),
        ),
        cli_case(
            "17 references",
            "paths",
            lambda w, h: run_words(*[x for _ in range(17) for x in ("-r", str(w.image))])(w, h),
        ),
        cli_case(
            "engine missing",
            "paths",
            lambda w, h: [
                "run",
                *w.model_args(**{"--engine": "/nonexistent/sd-stage"}),
                "-p",
                PROMPT,
                "--run-dir",
                str(h / "run"),
                *SMALL,
            ],
        ),
        cli_case(
            "engine not executable",
            "paths",
            lambda w, h: [
                "run",
                *w.model_args(**{"--engine": str(h / "sd-stage")}),
                "-p",
                PROMPT,
                "--run-dir",
                str(h / "run"),
                *SMALL,
            ],
            setup=_file_at("sd-stage", b"#!/bin/sh\necho hi\n"),
        ),
        cli_case(
            "lora dir is a file",
            "paths",
            lambda w, h: run_words("--lora-model-dir", str(h / "f"))(w, h),
            setup=_file_at("f", b"x"),
        ),
        cli_case(
            "-o is a folder",
            "paths",
            lambda w, h: run_words("-o", str(h / "out"))(w, h),
            setup=_dir_at("out"),
            short=True,
        ),
        cli_case(
            "-o under a file",
            "paths",
            lambda w, h: run_words("-o", str(h / "f" / "x.png"))(w, h),
            setup=_file_at("f", b"the user's file"),
        ),
        # folders
        cli_case(
            "run dir under a file",
            "folders",
            lambda w, h: run_words(run_dir="f/run")(w, h),
            setup=_file_at("f", b"x"),
        ),
        cli_case(
            "run dir holds result.png",
            "folders",
            run_words(),
            setup=_own_folder("result.png"),
            short=True,
        ),
        cli_case(
            "run dir holds inputs/image.png",
            "folders",
            run_words(),
            setup=_own_folder("inputs/image.png"),
        ),
        cli_case(
            "run dir holds other files",
            "folders",
            run_words(),
            setup=_own_folder("notes.txt", "photos/a.jpg"),
        ),
        cli_case(
            "run dir holds a run", "folders", run_words(), setup=lambda w, h: [_made_run(w, h)]
        ),
        cli_case(
            "resume a folder that is no run",
            "folders",
            lambda w, h: ["resume", str(h / "user"), "--engine", str(w.engine)],
            setup=lambda w, h: _user_files(h, "a.txt"),
        ),
        resume_case("resume a garbage run.json", "folders", _mut_garbage_manifest),
        resume_case(".lock is a folder", "folders", _mut_lock_folder),
        resume_case("checkpoints is a file", "folders", _mut_entry_file("checkpoints")),
        resume_case("logs is a file", "folders", _mut_entry_file("logs"), short=True),
        resume_case("steps is a file", "folders", _mut_entry_file("steps"), via="api"),
        resume_case(
            "sampler edited into run.json", "folders", _mut_spec(sampler="bogus"), short=True
        ),
        resume_case("steps 0 edited into run.json", "folders", _mut_spec(steps=0), via="api"),
        resume_case("key changed under checkpoints", "folders", _mut_stale_checkpoints),
        # links
        resume_case("logs links to a user folder", "links", _mut_link("logs", "dir"), short=True),
        resume_case(
            "diffuse.log links to a user file", "links", _mut_link("logs/diffuse.log", "file")
        ),
        resume_case("checkpoints links out", "links", _mut_link("checkpoints", "dir")),
        resume_case(".lock links to a new path", "links", _mut_link(".lock", "absent")),
        resume_case("inputs links out", "links", _mut_link("inputs", "dir"), via="api"),
        resume_case("result.png links to a user file", "links", _mut_link("result.png", "file")),
        # concurrent runs
        Case("two runs into one new folder", "concurrent", _two_runs_one_folder),
        Case("resume while another process holds it", "concurrent", _resume_while_locked),
        # PNG chunks
        _png_case(
            "PNG deep JSON",
            b'{"kind": "stepwise-job", "spec": ' + b"[" * 100000 + b"]" * 100000 + b"}",
            short=True,
        ),
        _png_case(
            "PNG NaN values",
            b'{"kind": "stepwise-job", "spec": {"strength": NaN, "cfg_scale": Infinity}}',
        ),
        _png_case("PNG garbage bytes", bytes(range(256)) * 4),
        _png_case("PNG spec not an object", b'{"kind": "stepwise-job", "spec": [1, 2]}'),
        _png_case(
            "PNG wrong types",
            b'{"kind": "stepwise-job", "spec": {"steps": "many", "seed": 1e400, "prompt": 5}}',
        ),
    ]
    return c


def _small_mask(path: Path) -> list[Path]:
    import numpy as np

    from app.imaging.io import save_png_atomic

    save_png_atomic(path, np.full((16, 16), 255, np.uint8))
    return [path]


def _two_runs_one_folder(world: World, here: Path) -> Outcome:
    """Two `run`s into the same new folder at once: one runs, the other is refused before any
    stage and the folder holds one run (its run.json verifies and names one prompt)."""
    out = Outcome("two runs into one new folder", "concurrent")
    results: dict[int, tuple] = {}

    def go(i: int) -> None:
        words = run_words(prompt=f"{PROMPT} {i}")(world, here)
        results[i] = cli(world, here / f"home{i}", *words)

    threads = [threading.Thread(target=go, args=(i,)) for i in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = sorted(r[0] for r in results.values())
    texts = "".join(r[1] + r[2] for r in results.values())
    out.traceback = "Traceback" in texts
    out.bug = "bug in Stepwise" in texts
    loser = [r for r in results.values() if r[0] != 0]
    out.refused = len(loser) == 1
    out.before_first_stage = all(
        not any(line.endswith("] started") for line in r[1].splitlines()) for r in loser
    )
    try:
        from app.pipeline.run.folder import open_run

        prompt = open_run(here / "run").spec.prompt
        ok = prompt in (f"{PROMPT} 1", f"{PROMPT} 2") and codes[0] == 0
    except Exception as exc:
        ok = False
        prompt = f"{type(exc).__name__}: {exc}"
    if not ok:
        out.user_files_changed = [f"the folder is mixed or lost: {prompt}, exits {codes}"]
    out.detail = next(
        (ln for r in loser for ln in r[2].splitlines() if ln.startswith("error:")), ""
    )
    return out


def _resume_while_locked(world: World, here: Path) -> Outcome:
    from app.pipeline.run.lock import RunLock

    run_dir = _made_run(world, here)
    before = _digest_tree([run_dir / "run.json", world.models.diffusion.parent])
    with RunLock(run_dir):
        result = cli(world, here / "home", "resume", str(run_dir), "--engine", str(world.engine))
    return judge_cli(
        "resume while another process holds it",
        "concurrent",
        result,
        before,
        _digest_tree([run_dir / "run.json", world.models.diffusion.parent]),
    )


# --- running -----------------------------------------------------------------------------------
def make_world(root: Path, engine: Path | None = None, models: Any = None) -> World:
    from app.engine.tiny_models import generate_models
    from app.pipeline.selftest import selftest_images

    if engine is None:
        given = os.environ.get("STEPWISE_TEST_ENGINE")
        if given:
            engine = Path(given)
        else:
            done = subprocess.run(
                [sys.executable, str(REPO / "native" / "build.py"), "--print-path"],
                capture_output=True,
                text=True,
                check=True,
            )
            engine = Path(done.stdout.strip().splitlines()[-1])
    if models is None:
        models = generate_models(root / "models")
    image, mask = selftest_images(root / "pictures")
    return World(root, Path(engine), models, image, mask)


def run_campaign(
    world: World,
    short: bool = False,
    log: Callable[[str], None] | None = None,
    only: list[str] | None = None,
) -> list[Outcome]:
    outcomes = []
    for i, case in enumerate(c for c in cases() if c.short or not short):
        if only and case.name not in only:
            continue
        here = world.root / f"case-{i:03d}"
        here.mkdir(parents=True)
        try:
            outcome = case.run(world, here)
        except Exception as exc:  # the campaign's own set-up failed
            outcome = Outcome(
                case.name,
                case.group,
                traceback=True,
                detail=f"campaign set-up: {type(exc).__name__}: {exc}",
            )
        outcomes.append(outcome)
        if log:
            log(_row(outcome))
    return outcomes


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    return {
        "cases": len(outcomes),
        "refused": sum(o.refused for o in outcomes),
        "refused_before_first_stage": sum(o.refused and o.before_first_stage for o in outcomes),
        "tracebacks": sum(o.traceback for o in outcomes),
        "bug_in_stepwise": sum(o.bug for o in outcomes),
        "user_files_changed": sum(bool(o.user_files_changed) for o in outcomes),
        "not_refused": [o.name for o in outcomes if not o.refused],
        "refused_late": [o.name for o in outcomes if o.refused and not o.before_first_stage],
    }


def ok(s: dict[str, Any]) -> bool:
    return (
        s["tracebacks"] == 0
        and s["bug_in_stepwise"] == 0
        and s["user_files_changed"] == 0
        and not s["not_refused"]
        and not s["refused_late"]
    )


def _row(o: Outcome) -> str:
    flags = ("refused" if o.refused else "ACCEPTED") + ("" if o.before_first_stage else " LATE")
    flags += " TRACEBACK" if o.traceback else ""
    flags += " BUG" if o.bug else ""
    flags += f" CHANGED {o.user_files_changed}" if o.user_files_changed else ""
    return f"{o.group:<10} {o.name:<40} {flags:<12} {o.detail[:110]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="the ~10 cases the suite runs")
    parser.add_argument("--sd-stage", type=Path, help="the engine (default: native/build.py's)")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--only", action="append", help="run only the case of this name")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        root = args.work or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        world = make_world(root, args.sd_stage)
        outcomes = run_campaign(world, args.short, log=print, only=args.only)
    s = summary(outcomes)
    print(json.dumps(s, indent=1) if args.json else "\n".join(f"{k}: {v}" for k, v in s.items()))
    return 0 if ok(s) else 1


if __name__ == "__main__":
    sys.exit(main())
