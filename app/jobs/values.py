"""Comparing jobs: which form values change a result (from the table's `invalidates`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.pipeline.job.params import CONTEXT, EXPAND, PARAMS
from app.pipeline.job.spec import JobSpec, spec_from_values, values_from_spec

# Parameters that never change a result (devices, engine switches, previews).
_NO_RESULT = frozenset(p.name for p in PARAMS if p.invalidates is None)
# The JobSpec fields that hold them ("devices", "preview").
_NO_RESULT_FIELDS = frozenset(
    p.spec_field.partition(".")[0] for p in PARAMS if p.invalidates is None
)


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


def neutral_changes(old: JobSpec, form_values: Mapping[str, Any]) -> dict[str, Any]:
    """The changes that give `old` the form's result-neutral values (devices, engine switches,
    previews) and keep everything that shapes the result as the run has it."""
    values = values_from_spec(old)
    values.update({n: form_values[n] for n in _NO_RESULT if n in form_values})
    new = spec_from_values(values, image=old.image, mask=old.mask, refs=old.refs)
    changes = spec_changes(old, new)
    return {name: value for name, value in changes.items() if name in _NO_RESULT_FIELDS}


def first_rerun(changes: Mapping[str, Any]) -> str | None:
    """The first stage that changes of these JobSpec fields make run again (None: none does),
    from the table's `invalidates` (image, mask and references: prepare)."""
    from app.pipeline import STAGES

    stages: list[str] = []
    for name in changes:
        if name in ("image", "mask", "refs"):
            stages.append("prepare")
        stages += [
            p.invalidates
            for p in PARAMS
            if p.invalidates is not None and p.spec_field.partition(".")[0] == name
        ]
    return min(stages, key=STAGES.index) if stages else None


def carried_values(
    spec: JobSpec, here: Mapping[str, Any], *, models: bool, frame: bool
) -> dict[str, Any]:
    """The job-form values a saved job (a PNG's settings, an old run's) brings into the form,
    by one rule: never its devices and engine switches (they belong to the machine that made
    it); model files only with `models`, and only where the file exists here (a bare file name,
    as saved pictures carry, is looked for beside the model file of that kind chosen now, in
    `here`, the form's values); the context area and the canvas expansion only with `frame`
    (they belong to the photo the job was made from, not to its result)."""
    values = values_from_spec(spec)
    out: dict[str, Any] = {}
    for p in PARAMS:
        value = values[p.name]
        if p.spec_field.startswith("devices.") or (not frame and p in (CONTEXT, EXPAND)):
            continue
        if p.spec_field.startswith("models."):
            found = _model_here(str(value or ""), str(here.get(p.name) or "")) if models else None
            if found is None:
                continue
            value = found
        out[p.name] = value
    return out


def _model_here(value: str, chosen: str) -> str | None:
    if not value:
        return None
    path = Path(value)
    if path.parent == Path(".") and chosen:  # a bare name: beside the file chosen now
        path = Path(chosen).parent / path.name
    return str(path) if path.is_absolute() and path.exists() else None
