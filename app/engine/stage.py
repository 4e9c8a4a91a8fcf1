"""The stages of a run, by name: the one table (run.json's `stages`, the engine's first
argument, the stage keys, the failures' `stage` all hold these values).

`Stage` is a str enum, so run.json files and the engine protocol (native/PROTOCOL.md) keep the
plain names ("vae-encode"), and a name read from a file compares equal to its member.
"""

from __future__ import annotations

from enum import StrEnum


class Stage(StrEnum):
    """A stage of a run, in the order a run makes them."""

    PREPARE = "prepare"  # the app's: align, fill, crop the photo (app/imaging)
    VAE_ENCODE = "vae-encode"  # the engine's: the picture and the references to latents
    LLM_ENCODE = "llm-encode"  # the engine's: the prompt to a conditioning
    DIFFUSE = "diffuse"  # the engine's: sampling
    VAE_DECODE = "vae-decode"  # the engine's: the final latent to a picture
    COMPOSITE = "composite"  # the app's: the picture back into the photo

    @property
    def on_engine(self) -> bool:
        """An sd-stage process makes it (the others are the app's own)."""
        return self in ENGINE_STAGES


STAGES: tuple[Stage, ...] = tuple(Stage)
ENGINE_STAGES: tuple[Stage, ...] = (
    Stage.VAE_ENCODE,
    Stage.LLM_ENCODE,
    Stage.DIFFUSE,
    Stage.VAE_DECODE,
)

__all__ = ["ENGINE_STAGES", "STAGES", "Stage"]
