"""The user's files inside a run: copied in atomically, verified against their sha256 before use."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from app.core.atomic import write_with_atomic
from app.core.errors import DamagedFileError, InputError, StepwiseError
from app.core.safe_files import open_read
from app.engine.tensorfile import file_sha256
from app.pipeline.job import preflight
from app.pipeline.job.catalog import EngineCatalog
from app.pipeline.job.spec import JobSpec
from app.pipeline.run.folder import INPUTS_DIR, InputFile, Run, RunInputs


def copy_atomic(src: Path, dest: Path) -> None:
    """`dest` becomes a whole copy of `src` or stays as it was."""

    def writer(handle: BinaryIO) -> None:
        with open_read(src) as f:  # a FIFO or device is refused by name, never waited on
            shutil.copyfileobj(f, handle)

    try:
        write_with_atomic(dest, writer)
    except FileNotFoundError as exc:
        raise InputError("The file {path} does not exist.", path=src) from exc


def check_new_job(
    spec: JobSpec, catalog: EngineCatalog | None = None, devices: Iterable[str] | None = None
) -> None:
    """Everything a run checks before its folder is made, the pictures included: the values,
    the engine's limits, the models, the input files and the frame against the picture (the
    sampler and devices against the engine's when `catalog` / `devices` are given). The one
    preflight of Pipeline.create_run and of `queue add` (CLI and GUI: JobQueue.add)."""
    preflight.check_job(spec, catalog, devices)
    check_spec_inputs(spec)
    preflight.check_frame_fits(spec)


def check_new_jobs(
    specs: Iterable[JobSpec],
    catalog: EngineCatalog | None = None,
    devices: Iterable[str] | None = None,
) -> None:
    """check_new_job once per distinct job of `specs` (N seeds of one job: once)."""
    names = None if devices is None else list(devices)
    seen: set[object] = set()
    for spec in specs:
        key = _all_but_the_seed(spec)
        if key not in seen:
            seen.add(key)
            check_new_job(spec, catalog, names)


_BUT_THE_SEED = tuple(f.name for f in dataclasses.fields(JobSpec) if f.name != "seed")


def _all_but_the_seed(spec: JobSpec) -> object:
    """What tells two jobs apart for the checks (100,000 seeds of one job: about 1 s here)."""
    key = tuple(getattr(spec, name) for name in _BUT_THE_SEED)
    try:
        hash(key)
    except TypeError:  # a list where a tuple belongs: compared by its text
        return repr(key)
    return key


def check_spec_inputs(spec: JobSpec) -> None:
    """The files a job names exist (a clear InputError naming the file otherwise)."""
    named = [("image", spec.image), ("mask", spec.mask)]
    named += [("reference image", ref) for ref in spec.refs]
    for label, path in named:
        if path is not None:
            _check_input_file(label, Path(path))
    _check_pictures(spec)
    if spec.mask is not None and spec.image is None:
        raise InputError("A mask needs an image to inpaint.")
    if spec.mask is not None and preflight.mask_is_empty(spec.mask) and not preflight.expands(spec):
        # prepare refuses it too, but only once the run has begun (issue 38, item 10)
        raise InputError(
            "The mask is empty: paint the area to repaint.",
            path=spec.mask,
            fix="White (or at least 50 % grey) marks what to regenerate.",
        )


def _check_pictures(spec: JobSpec) -> None:
    """Each picture decodes and the mask has the image's size, before any stage (prepare
    would refuse them only once the run has begun). InputError / MaskSizeError name the file."""
    from app.imaging.io import load_image, load_mask

    size = None
    if spec.image is not None:
        height, width = load_image(spec.image).shape[:2]
        size = (width, height)
    if spec.mask is not None and size is not None:
        load_mask(spec.mask, expected_size=size)
    for ref in spec.refs:
        load_image(ref)


def _check_input_file(label: str, path: Path) -> None:
    """A regular file: a missing one, a folder, a FIFO or a device each said as what it is."""
    if not path.exists():
        raise InputError(
            "The {label} {path} does not exist.", path=path, fix="Check the path.",
            values={"label": label},
        )  # fmt: skip
    if path.is_dir():
        raise InputError(
            "The {label} {path} is a folder, not a picture.", path=path,
            fix="Name the picture file itself.", values={"label": label},
        )  # fmt: skip
    if not path.is_file():
        raise InputError(
            "The {label} {path} is not a regular file (a pipe or a device).", path=path,
            fix="Save the picture to a file and name that.", values={"label": label},
        )  # fmt: skip


def copy_inputs(run: Run, spec: JobSpec, photo_name: str | None = None) -> None:
    """Copies image, mask and references into inputs/ and records their sha256, and the
    image's `photo_name` (the user's file name, not its path: a shared run folder does not
    tell where someone keeps their files; the GUI's copy of a document is named image-…)."""
    (run.dir / INPUTS_DIR).mkdir(parents=True, exist_ok=True)

    def copy_in(src: str, name: str, title: str | None = None) -> InputFile:
        suffix = Path(src).suffix.lower() or ".png"
        rel = f"{INPUTS_DIR}/{name}{suffix}"
        copy_atomic(Path(src), run.dir / rel)
        title = Path(title).name if title else ""
        return InputFile(rel, file_sha256(run.dir / rel), str(src), title)

    run.inputs = RunInputs(
        image=copy_in(spec.image, "image", photo_name) if spec.image else None,
        mask=copy_in(spec.mask, "mask") if spec.mask else None,
        refs=tuple(copy_in(r, f"ref_{i}") for i, r in enumerate(spec.refs)),
    )


def copy_inputs_from(old: Run, new: Run) -> None:
    """A branch keeps the same inputs: the verified copies and their records."""
    verify_inputs(old)
    for f in old.inputs.files():
        copy_atomic(old.dir / f.file, new.dir / f.file)
    new.inputs = old.inputs


def verify_inputs(run: Run) -> None:
    """Every copy in inputs/ still has its recorded sha256 (else DamagedFileError)."""
    for f in run.inputs.files():
        path = run.dir / f.file
        try:
            digest = file_sha256(path)
        except (OSError, StepwiseError) as exc:
            raise DamagedFileError(
                "The run's copy {path} of {source} cannot be read.",
                path=path,
                values={"source": f.source},
                fix="Start a new run with the original file.",
            ) from exc
        if digest != f.sha256:
            raise DamagedFileError(
                "The run's copy {path} of {source} changed since the run began.",
                path=path,
                values={"source": f.source},
                fix="Start a new run with the original file.",
            )
