"""How much disk a run needs, estimated from the job's real size (issue 29, defect 6)."""

from __future__ import annotations

from app.pipeline.job import params as P
from app.pipeline.job.spec import JobSpec

LATENT_CHANNELS = 128  # FLUX.2 latent channels per 16 px cell
FLOAT_BYTES = 4
DISK_MARGIN_BYTES = 8 * 1024 * 1024  # logs, previews, run.json (a tiny run writes ~1 MB)
X0_KEPT = 4  # checkpoints/x0_NNN.bin: the newest predictions kept

NO_ROOM_MESSAGE = "The disk of {path} has {free_mb} MB free; the run needs about {need_mb} MB."


def expected_run_bytes(spec: JobSpec) -> int:
    """A generous estimate of what a run writes, from the job's real size (the picture's own
    when there is one: the spec's width and height are the text-to-image size): a latent per
    step checkpoint and the newest x0s, the encoded image and references, the prepared,
    decoded and composited pictures (as raw RGBA), plus a margin."""
    width, height = spec.width, spec.height
    if spec.image is not None:
        from PIL import Image

        try:
            with Image.open(spec.image) as picture:
                width, height = picture.size
        except (OSError, ValueError, Image.DecompressionBombError):
            pass  # the picture's own check says what is wrong with it
    cells = max(width // P.ALIGN_PX, 1) * max(height // P.ALIGN_PX, 1)
    latent = LATENT_CHANNELS * cells * FLOAT_BYTES
    latents = (max(spec.steps, 0) + X0_KEPT + 3 + spec.reference_count) * latent
    pictures = 4 * width * height * 4
    return latents + pictures + DISK_MARGIN_BYTES
