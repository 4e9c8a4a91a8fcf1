"""Comparing jobs: which form values change a result (from the table's `invalidates`)."""

from __future__ import annotations

import dataclasses
from typing import Any

from app.pipeline.params import PARAMS, values_from_spec
from app.pipeline.spec import JobSpec

# Parameters that never change a result (devices, engine switches, previews).
_NO_RESULT = frozenset(p.name for p in PARAMS if p.invalidates is None)


def same_job(a: JobSpec, b: JobSpec) -> bool:
    """The two specs describe the same result (devices and previews do not change it)."""
    va, vb = values_from_spec(a), values_from_spec(b)
    return all(va[n] == vb[n] for n in va if n not in _NO_RESULT) and (
        a.image,
        a.mask,
        a.refs,
    ) == (b.image, b.mask, b.refs)


def spec_changes(old: JobSpec, new: JobSpec) -> dict[str, Any]:
    """JobSpec top-level field → new value, for every field that differs."""
    return {
        f.name: getattr(new, f.name)
        for f in dataclasses.fields(new)
        if getattr(new, f.name) != getattr(old, f.name)
    }
