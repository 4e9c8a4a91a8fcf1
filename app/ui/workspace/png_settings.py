"""Pictures that carry their settings: "Save as…" writes the job's parameters into the PNG
(app/imaging/png_params.py), and opening such a PNG offers to load them into the job form."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath
from typing import Any

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from app.core.errors import StepwiseError
from app.imaging.png_params import read_png_parameters, save_png_with_parameters
from app.jobs.job_form import JobForm
from app.jobs.values import carried_values
from app.pipeline.job.spec import JobSpec, ModelFiles, spec_from_dict, spec_to_dict
from app.ui.kit.messages import show_error

log = logging.getLogger(__name__)

PROMPT_SHOWN_CHARS = 120


def _tr(text: str) -> str:
    return QCoreApplication.translate("Workspace", text)


@dataclass(frozen=True)
class StepPicture:
    """A picture of a run's step, not its result: the step's preview or its decoded image."""

    kind: str  # "preview" | "decoded"
    step: int


def save_picture(
    target: Path, picture: np.ndarray, spec: JobSpec | None, step: StepPicture | None = None
) -> Path:
    """Writes `picture` as PNG with `spec`'s parameters (A1111 text + Stepwise JSON): the
    picture's own size, and file names without their folders (a shared picture does not tell
    where someone keeps their models or where the app caches its inputs). `step`: the picture
    is that step's, and the parameters say so (they are the run's, which goes on past it)."""
    if target.suffix.lower() != ".png":
        target = target.with_suffix(".png")
    if spec is None:
        return save_png_with_parameters(target, picture, "", {})
    size = (int(picture.shape[1]), int(picture.shape[0]))
    shared = shareable(spec)
    text, which = parameters_line(shared, size), None
    if step is not None:
        which = {"kind": step.kind, "step": step.step, "steps": spec.steps}
        text += f", Stepwise picture: step {step.step} of {spec.steps} ({step.kind})"
    return save_png_with_parameters(target, picture, text, spec_to_dict(shared), which)


def shareable(spec: JobSpec) -> JobSpec:
    """`spec` with every file named by its name alone (models, the picture, mask, references)."""
    m = spec.models

    def name(path: str | None) -> str | None:
        # Either system's folders go (C:\\Users\\alice\\… saved on Linux too: issue 29, defect 13).
        return PureWindowsPath(path).name if path else path

    return dataclasses.replace(
        spec,
        models=ModelFiles(
            name(m.diffusion) or "", name(m.llm) or "", name(m.vae) or "", name(m.lora_dir) or ""
        ),
        image=name(spec.image),
        mask=name(spec.mask),
        refs=tuple(name(r) or "" for r in spec.refs),
    )


def save_picture_dialog(
    parent: QWidget,
    picture: np.ndarray,
    spec: JobSpec | None,
    suggested: str,
    step: StepPicture | None = None,
) -> Path | None:
    if step is None:
        title = _tr("Save picture")
    elif step.kind == "preview":
        title = _tr("Save the preview of step {step} (the run's settings, stopped at it)")
    else:
        title = _tr("Save decoded step {step} (the run's settings, stopped at it)")
    target, _ = QFileDialog.getSaveFileName(
        parent, title.format(step=step.step if step else 0), suggested, _tr("PNG image (*.png)")
    )
    if not target:
        return None
    try:
        return save_picture(Path(target), picture, spec, step)
    except (StepwiseError, OSError) as exc:
        show_error(parent, _tr("Could not save the picture"), exc, Path(target))
        return None


def form_values_of(spec: dict[str, Any], here: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The job-form values a saved spec holds, by the rule every saved job follows
    (app/jobs/values.carried_values): no devices, model files only where they exist here (a
    bare name beside the model file chosen now, in `here`), and no context area or canvas
    expansion (an outpainted result is expanded already). Raises ValueError/TypeError/KeyError
    when malformed."""
    return carried_values(spec_from_dict(spec), here or {}, models=True, frame=False)


def offer_png_settings(parent: QWidget, path: Path, form: JobForm) -> bool:
    """When the PNG at `path` carries Stepwise settings, asks to load them into the form; True
    when they were loaded."""
    if path.suffix.lower() != ".png":
        return False
    try:
        carried = read_png_parameters(path)
    except StepwiseError as exc:
        log.info("No settings read from %s: %s", path, exc)
        return False
    if not carried.has_settings:
        return False
    try:
        values = form_values_of(carried.spec, form.values())
    except (ValueError, TypeError, KeyError) as exc:
        log.info("The settings in %s do not read: %s", path, exc)
        return False
    question = _tr(
        "{file} carries the settings it was made with (prompt: \u201c{prompt}\u201d, seed "
        "{seed}, {steps} steps). Load them into the job? Devices and models you have "
        "chosen stay unless the picture's model files exist here."
    )
    return offer_settings(parent, _tr("Settings in the picture"), question, path.name, values, form)


def offer_settings(
    parent: QWidget | None,
    title: str,
    question: str,
    name: str,
    values: dict[str, Any],
    form: JobForm,
) -> bool:
    """Asks whether `values` (carried_values of a saved job) go into the form; `question` has
    {file}, {prompt}, {seed} and {steps}. True when they were loaded."""
    prompt = str(values.get("prompt", ""))
    if len(prompt) > PROMPT_SHOWN_CHARS:
        prompt = prompt[: PROMPT_SHOWN_CHARS - 1] + "…"
    answer = QMessageBox.question(
        parent,
        title,
        question.format(
            file=name, prompt=prompt, seed=values.get("seed"), steps=values.get("steps")
        ),
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.Yes,
    )
    if answer != QMessageBox.StandardButton.Yes:
        return False
    form.update(values)
    return True


def parameters_line(spec: JobSpec, size: tuple[int, int] | None = None) -> str:
    """The A1111-style parameters text many viewers show; `size`: the picture's (else the
    job's width × height, which an image-to-image job does not use)."""
    width, height = size or (spec.width, spec.height)
    lines = [spec.prompt]
    if spec.negative_prompt:
        lines.append(f"Negative prompt: {spec.negative_prompt}")
    lines.append(
        f"Steps: {spec.steps}, Sampler: {spec.sampler}, Schedule type: "
        f"{spec.scheduler}, CFG scale: {spec.cfg_scale:g}, Seed: {spec.seed}, Size: "
        f"{width}x{height}, Denoising strength: {spec.strength:g}, Model: "
        f"{Path(spec.models.diffusion).name}"
    )
    return "\n".join(lines)
