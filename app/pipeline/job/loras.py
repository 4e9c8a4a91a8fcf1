"""LoRA tags of a prompt (`<lora:name:weight>`), the files they name in the LoRA folder, and
those files' identities (what the stage keys hash)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.pipeline.job.identity import fingerprint

LORA_TAG = re.compile(r"<lora:([^:>]+):([^>]+)>")
LORA_EXTENSIONS = (".safetensors", ".gguf", ".ckpt", ".pt", ".bin")


@dataclass(frozen=True)
class LoraRef:
    """A `<lora:name:weight>` tag of the prompt and the file it names (None = not found)."""

    name: str
    weight: str
    path: Path | None


def prompt_loras(prompt: str, lora_dir: str) -> list[LoraRef]:
    out = []
    for name, weight in LORA_TAG.findall(prompt):
        path = None
        if lora_dir:
            base = Path(lora_dir)
            for ext in ("", *LORA_EXTENSIONS):
                candidate = base / f"{name}{ext}"
                if candidate.is_file():
                    path = candidate
                    break
        out.append(LoraRef(name, weight.strip(), path))
    return out


def lora_identities(loras: list[LoraRef]) -> list[dict[str, Any]]:
    return [
        {
            "name": lr.name,
            "weight": lr.weight,
            "file": (f"{lr.path.stat().st_size}:{fingerprint(lr.path)}" if lr.path else None),
        }
        for lr in loras
    ]
