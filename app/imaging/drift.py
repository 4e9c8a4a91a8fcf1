"""How far a generated picture drifted in colour, read only from pixels that witness it.

The engine repaints whole 16-px cells around the mask. Between the mask and the cells' edge
(the "inner" candidates) the generated picture was meant to be the photo again; just outside
the cells (the "outer" candidates) it is the photo's VAE round trip, which differs only when the
whole frame drifted. What differs there is either the model's drift (the photo's colours
shifted, its fine texture kept) or new content that reached past the mask (an object a few
pixels wider than the stroke: its own colour and texture). Only the first may be taken out.

The reading (witness-validated colour match, issue 40; the method and its figures:
the project's shared note colour-match-wvm):

1. (drift_modes.py) The residuals r = generated − photo (CIE LAB) of the candidates are
   clustered (Tukey mean-shift, `MODE_H`): each cluster ("mode") is one candidate offset.
2. Each mode is validated as a whole: where it holds, the generated picture should be the
   photo shifted by that offset (clipped to the sRGB gamut as any picture is), so its fine
   texture (band-pass `FINE_SIGMA` − `COARSE_SIGMA`) should follow the prediction's with a slope
   near 1; new content (flat, or another object's texture) gives about 0. The slope, pooled over
   the mode's pixels, with its standard error (`CORRELATION_AREA_PX`) gives a likelihood ratio of
   "drift" against "new content"; with a prior (a drift-sized offset that explains most of the
   candidates) it is the mode's probability of being drift (`valid`).
3. The most supported valid mode is the drift; its confidence fades with little support, doubt
   or a small share (a decision: a mode believed at 5 % applies nothing).
4. (drift_field.py) From the witnesses alone (the candidates a valid mode explains, whose
   local texture agrees with the photo's) come a gain per LAB channel, a colour table (what is
   left, by the generated colour: the gamut's clipping of saturated colours, colour-dependent
   drift) and, inside the cells, a per-cell field (a drift that varies across the picture).

With no witness (no mode keeps the photo's texture, or no candidate at all) nothing is read and
the colour match declines, saying why (`Drift.reason`); the composite is then exactly the plain
one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.imaging.drift_field import MIN_OFFSET, NO_MODEL, Model, fit_model
from app.imaging.drift_modes import Candidates, Reading, Texture, ramp

SUPPORT_NONE, SUPPORT_FULL = 24.0, 160.0  # px: confidence by the mode's support
VALID_NONE, VALID_FULL = 0.5, 0.9  # confidence by the mode's probability of being drift
SHARE_NONE, SHARE_FULL = 0.03, 0.08  # confidence by the mode's share of the candidates


@dataclass(frozen=True)
class Drift:
    """What one reading found: the drift (generated − photo, LAB) and how far it is believed,
    or why nothing was read (`reason`: a code, `values` its figures). Kept in the run's record
    (`as_record`), so a real run shows whether its ring kept the photo's texture."""

    offset: np.ndarray
    confidence: float
    reason: str | None = None  # None: read (applied when confidence > 0)
    values: dict[str, Any] = field(default_factory=dict)
    source: str = ""  # "inner" or "outer": the candidate set it was read from
    slope: float = 0.0  # the chosen mode's texture slope (1: the photo's texture) ...
    slope_se: float = 0.0  # ... its standard error
    valid: float = 0.0  # the chosen mode's probability of being drift
    support: float = 0.0  # px the chosen mode explains
    share: float = 0.0  # ... as a share of the candidates
    gain: np.ndarray = field(default_factory=lambda: np.ones(3, np.float32))
    witnesses: float = 0.0  # px that taught the colour model
    model: Model = NO_MODEL

    @property
    def applies(self) -> bool:
        """Something to take out: read, believed, and more than a unit (or a gain): a smaller
        offset is within the VAE's noise and would only move new content."""
        if self.reason is not None or self.confidence <= 0.0:
            return False
        return bool(
            float(np.linalg.norm(self.offset)) >= MIN_OFFSET or np.any(self.model.gain != 1.0)
        )

    def as_record(self) -> dict[str, Any]:
        """Plain JSON: what colour match did, for the run's record."""
        if self.reason is not None:
            return {"applied": False, "reason": self.reason, "values": dict(self.values)}
        return {
            "applied": self.applies,
            "offset_lab": [round(float(v), 2) for v in self.offset],
            "gain": [round(float(v), 3) for v in self.gain],
            "confidence": round(self.confidence, 3),
            "source": self.source,
            "slope": round(self.slope, 3),
            "slope_se": round(self.slope_se, 3),
            "valid": round(self.valid, 3),
            "support_px": round(self.support),
            "share": round(self.share, 3),
            "witness_px": round(self.witnesses),
        }


def declined(reason: str, **values: Any) -> Drift:
    return Drift(np.zeros(3, np.float32), 0.0, reason, values)


# Why a reading declined (codes; the texts are the UI's and the CLI's).
NO_RING = "no_ring"  # no unmasked pixel around the mask
TINY_RING = "tiny_ring"  # {n}: too few
NO_WITNESS = "no_witness"  # {slope}: the ring does not keep the photo's texture
STRENGTH_ZERO = "strength_zero"


def read_drift(cands: Candidates, texture: Texture, with_field: bool) -> Drift:
    """The drift of the generated picture (`texture`) read from one candidate set; the
    per-cell field only `with_field`."""
    reading = Reading(cands, texture)
    photo = texture.photo
    best, modes = reading.best()
    if best is None:
        return declined(NO_WITNESS, slope=0.0, source=cands.name)
    confidence = float(
        ramp(best.support, SUPPORT_NONE, SUPPORT_FULL)
        * ramp(best.valid, VALID_NONE, VALID_FULL)
        * ramp(best.share, SHARE_NONE, SHARE_FULL)
    )
    figures = dict(
        source=cands.name, slope=best.slope, slope_se=min(best.slope_se, 1e6), valid=best.valid,
        support=best.support, share=best.share,
    )  # fmt: skip
    if confidence <= 0.0:
        values = {k: round(float(v), 3) if isinstance(v, float) else v for k, v in figures.items()}
        return declined(NO_WITNESS, **values)
    offset = reading.refine(best, modes)
    model = Model(offset, confidence)
    witness_px = 0.0
    if cands.name == "inner" or float(np.linalg.norm(offset)) >= MIN_OFFSET:
        w, vouched = reading.witnesses(modes)
        witness_px = float(w.sum()) * cands.scale
        shape = photo.shape[:2] if with_field else None
        model = fit_model(reading, offset, confidence, w, shape, vouched)
    return Drift(
        offset, confidence, None, {}, cands.name, best.slope, min(best.slope_se, 1e6), best.valid,
        best.support, best.share, model.gain, witness_px, model,
    )  # fmt: skip
