"""The one owner of the size the model will get (issue 28): the picture's size and the mask's
box (from the cached mask facts) through the job form's prepare options (expansion, context,
alignment, only masked and its target) — the plan `prepare` follows in the pipeline, computed
without touching a pixel. Panes (Generate → size, Prepare → "Model input") and the memory plan
listen to `changed`; none of them computes it again."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.core.errors import StepwiseError
from app.imaging.geometry import Rect, Size
from app.imaging.prepare import plan_model_input
from app.jobs.job_form import JobForm
from app.jobs.job_inputs import JobInputs
from app.pipeline.job.spec import spec_from_values

PictureSize = Callable[[], tuple[int, int] | None]
MaskBox = Callable[[], Rect | None]


def model_input_of(
    size: tuple[int, int] | None, mask_box: MaskBox, values: Mapping[str, Any]
) -> Size | None:
    """The model's input size for a picture of `size` (None: no picture, text to image) with
    the job form's `values`; `mask_box` is asked only with "only masked" (None: no mask)."""
    if size is None:
        return None
    options = spec_from_values(dict(values)).prepare
    if options is None:
        return None
    box = mask_box() if options.only_masked else None
    try:
        _region, _scaled, plan = plan_model_input(size, box, options)
    except (StepwiseError, ValueError):  # a context or expansion the form calls wrong
        return None
    return Size(int(plan.aligned_size[0]), int(plan.aligned_size[1]))


class ModelInputSize(QObject):
    """The size the model will get, recomputed when the form or the inputs change (`update`);
    `changed(Size | None)` when it does."""

    changed = Signal(object)  # Size | None

    def __init__(
        self,
        values: Callable[[], Mapping[str, Any]],
        picture_size: PictureSize,
        mask_box: MaskBox,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._values, self._picture_size, self._mask_box = values, picture_size, mask_box
        self._size = self._compute()

    def _compute(self) -> Size | None:
        return model_input_of(self._picture_size(), self._mask_box, self._values())

    @property
    def size(self) -> Size | None:
        return self._size

    def update(self, *_args: object) -> None:
        size = self._compute()
        if size != self._size:
            self._size = size
            self.changed.emit(size)


def job_model_input(form: JobForm, inputs: JobInputs, parent: QObject) -> ModelInputSize:
    """The generation model's owner: the job form's values over its inputs (the painter's
    picture, the mask's box from the cached mask facts), updated when either changes."""
    owner = ModelInputSize(form.values, lambda: inputs.size, inputs.mask_box, parent)
    form.changed.connect(owner.update)
    inputs.changed.connect(owner.update)
    return owner
