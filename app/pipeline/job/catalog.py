"""What the engine offers a job: its devices and their memory, its samplers and schedulers.
Preflight checks a job against it; the seam (api.py) hands it out."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class DeviceInfo:
    """A device the engine can use: name ("cpu", "vulkan0", ...) and its description, and the
    memory facts the engine reports (None where it cannot tell)."""

    name: str
    description: str
    total_bytes: int | None = None  # device memory
    free_bytes: int | None = None  # free when the engine asked
    max_alloc_bytes: int | None = None  # the largest single allocation the driver accepts
    fp16: bool | None = None  # the device computes in fp16

    def __iter__(self) -> Iterator[str]:
        """Unpacks as the (name, description) pair devices() returned before (compatibility)."""
        return iter((self.name, self.description))


@dataclass(frozen=True)
class SamplerInfo:
    """A sampler the engine offers; resumable = it resumes bit-exactly from a checkpoint."""

    name: str
    resumable: bool


@dataclass(frozen=True)
class EngineCatalog:
    """What the engine offers, from the engine itself (`sd-stage --list-samplers`)."""

    samplers: tuple[SamplerInfo, ...]
    schedulers: tuple[str, ...]

    @property
    def resumable(self) -> frozenset[str]:
        return frozenset(s.name for s in self.samplers if s.resumable)
