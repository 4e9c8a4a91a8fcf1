"""Pictures that carry their settings: "Save as…" writes the job's parameters into the PNG
(app/imaging/png_params.py), and opening such a PNG offers to load them into the job form."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from app.core.errors import StepwiseError
from app.imaging.png_params import read_png_parameters, save_png_with_parameters
from app.jobs.job_form import JobForm
from app.pipeline.params import CONTEXT, EXPAND, PARAMS, values_from_spec
from app.pipeline.spec import JobSpec, spec_from_dict, spec_to_dict
from app.ui.messages import show_error

log = logging.getLogger(__name__)

PROMPT_SHOWN_CHARS = 120


def _tr(text: str) -> str:
    return QCoreApplication.translate("Workspace", text)


def save_picture(target: Path, picture: np.ndarray, spec: JobSpec | None) -> Path:
    """Writes `picture` as PNG with `spec`'s parameters (A1111 text + Stepwise JSON)."""
    if target.suffix.lower() != ".png":
        target = target.with_suffix(".png")
    if spec is None:
        return save_png_with_parameters(target, picture, "", {})
    return save_png_with_parameters(target, picture, parameters_line(spec), spec_to_dict(spec))


def save_picture_dialog(
    parent: QWidget, picture: np.ndarray, spec: JobSpec | None, suggested: str
) -> Path | None:
    target, _ = QFileDialog.getSaveFileName(
        parent, _tr("Save picture"), suggested, _tr("PNG image (*.png)")
    )
    if not target:
        return None
    try:
        return save_picture(Path(target), picture, spec)
    except (StepwiseError, OSError) as exc:
        show_error(parent, _tr("Could not save the picture"), exc, Path(target))
        return None


def form_values_of(spec: dict[str, Any]) -> dict[str, Any]:
    """The job-form values a saved spec holds, less what belongs to this machine: devices, and
    model files that do not exist here; and less the context area and the canvas expansion,
    which belong to the photo the run was made from (an outpainted result is expanded
    already). Raises ValueError/TypeError/KeyError when malformed."""
    values = values_from_spec(spec_from_dict(spec))
    out = {}
    for p in PARAMS:
        value = values[p.name]
        if p.spec_field.startswith("devices.") or p in (CONTEXT, EXPAND):
            continue
        if p.spec_field.startswith("models.") and (not value or not Path(str(value)).exists()):
            continue
        out[p.name] = value
    return out


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
        values = form_values_of(carried.spec)
    except (ValueError, TypeError, KeyError) as exc:
        log.info("The settings in %s do not read: %s", path, exc)
        return False
    prompt = str(values.get("prompt", ""))
    if len(prompt) > PROMPT_SHOWN_CHARS:
        prompt = prompt[: PROMPT_SHOWN_CHARS - 1] + "…"
    answer = QMessageBox.question(
        parent,
        _tr("Settings in the picture"),
        _tr(
            "{file} carries the settings it was made with (prompt: \u201c{prompt}\u201d, seed "
            "{seed}, {steps} steps). Load them into the job? Devices and models you have "
            "chosen stay unless the picture's model files exist here."
        ).format(file=path.name, prompt=prompt, seed=values.get("seed"), steps=values.get("steps")),
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.Yes,
    )
    if answer != QMessageBox.StandardButton.Yes:
        return False
    form.update(values)
    return True


def parameters_line(spec: JobSpec) -> str:
    """The A1111-style parameters text many viewers show."""
    lines = [spec.prompt]
    if spec.negative_prompt:
        lines.append(f"Negative prompt: {spec.negative_prompt}")
    lines.append(
        f"Steps: {spec.steps}, Sampler: {spec.sampler}, Schedule type: "
        f"{spec.scheduler}, CFG scale: {spec.cfg_scale:g}, Seed: {spec.seed}, Size: "
        f"{spec.width}x{spec.height}, Denoising strength: {spec.strength:g}, Model: "
        f"{Path(spec.models.diffusion).name}"
    )
    return "\n".join(lines)
