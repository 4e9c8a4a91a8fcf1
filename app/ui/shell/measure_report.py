"""The measure report as the window shows it (issue 41): the report's facts
(app/pipeline/measure/report.py: the JSON's data and its tables as data) rendered as Markdown
in the user's language — tables with localized headings, devices as this window names them,
yes / no and on / off for switches, seconds and MiB / GiB with their units, a failed stage in
the user's words, no setting names. The dialog shows it rendered (QTextBrowser.setMarkdown) and
Copy puts this text on the clipboard; the file beside the JSON stays English, for us."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication

from app.pipeline.job import params as P
from app.pipeline.measure.probe import failure_of
from app.pipeline.measure.report import (
    MIB,
    Pair,
    decode_size,
    diffuse_pairs,
    driver_facts,
    failed_rows,
    llm_cpu_seconds,
    llm_rows,
    ratio,
    vae_pairs,
)
from app.pipeline.plans import CPU
from app.ui.words.texts import failure_text, sentence

GIB = 1024 * MIB
NONE = "–"  # a value not measured


def _tr(text: str) -> str:
    return QCoreApplication.translate("Measure", text)


def stage_name(stage: str) -> str:
    names: dict[str, str] = {
        "llm-encode": _tr("the text encoder"),
        "diffuse": _tr("diffusion"),
        "vae-decode": _tr("the VAE decode"),
    }
    return names.get(stage, stage)


def device_name(name: object) -> str:
    return _tr("CPU") if name == CPU else str(name)


def yes_no(value: object) -> str:
    return NONE if value is None else _tr("yes") if value else _tr("no")


def on_off(value: object) -> str:
    return NONE if value is None else _tr("on") if value else _tr("off")


def _number(n: float) -> str:
    return f"{n:,.0f}" if abs(n) >= 100 else f"{n:.3g}"


def seconds(n: object) -> str:
    return _tr("{n} s").format(n=_number(n)) if isinstance(n, int | float) else NONE


def per_step(n: object) -> str:
    return _tr("{n} s/step").format(n=_number(n)) if isinstance(n, int | float) else NONE


def memory(n: object) -> str:
    """Bytes as MiB, or GiB from 1 GiB on."""
    if not isinstance(n, int | float):
        return NONE
    if n >= GIB:
        return _tr("{n} GiB").format(n=f"{n / GIB:.1f}")
    return _tr("{n} MiB").format(n=f"{n / MIB:,.0f}")


def size_text(size: object) -> str:
    ok = isinstance(size, list | tuple) and len(size) == 2
    return f"{size[0]}×{size[1]}" if ok else _tr("unknown")  # type: ignore[index]


def times(r: float | None) -> str:
    return NONE if r is None else f"×{r:.2f}"


# The settings the measurement may suggest, by their parameter (app/pipeline/job/params.py).
_CHOICE_LABELS = {
    P.LLM_DEVICE.name: "Text encoder runs on",
    P.DIFFUSION_DEVICE.name: "Diffusion runs on",
    P.VAE_DEVICE.name: "VAE runs on",
    P.FLASH_ATTENTION.name: "Flash attention",
    P.VAE_TILING.name: "VAE tiling",
}


def choice_label(name: str) -> str:
    return _tr(_CHOICE_LABELS[name]) if name in _CHOICE_LABELS else name


def choice_value(name: str, value: object) -> str:
    if isinstance(value, bool):
        return on_off(value)
    return device_name(value) if name.endswith("_device") else str(value)


def change_line(name: str, old: object, new: object) -> str:
    return _tr("{setting}: {old} → {new}").format(
        setting=choice_label(name), old=choice_value(name, old), new=choice_value(name, new)
    )


def _item(label: str, value: str) -> str:
    return "- " + _tr("{label}: {value}").format(label=label, value=value)


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(map(_cell, headers)) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(map(_cell, row)) + " |" for row in rows]
    return out


def _measured(row: dict[str, Any], key: str, unit: Any) -> str:
    if not row:
        return NONE
    return _tr("failed") if "error" in row else unit(row.get(key))


def _both(a: dict[str, Any], b: dict[str, Any], key: str) -> str:
    return f"{memory(a.get(key))} / {memory(b.get(key))}"


def _models_note(note: str) -> str:
    return _tr(note)  # the session's notes (MINE_NOTE, TINY_NOTE, SHAPE_NOTE) are in the .ts


def _summary(report: dict[str, Any]) -> list[str]:
    m = report["models"]
    created = str(report["created"])[:16].replace("T", " ")
    files = ", ".join(f"`{Path(m[k]).name}`" for k in ("diffusion", "llm", "vae"))
    threads = report["threads"] or _tr("automatic")
    out = [
        "- " + _tr("Measured {date}, in {time}.").format(
            date=created, time=seconds(report["seconds"])
        ),
        "- " + _tr("Engine: {path}").format(path=f"`{report['engine']}`"),
        "- " + _tr("Models: {note} ({files})").format(note=_models_note(m["note"]), files=files),
        "- " + _tr("{steps} steps per diffusion run; CPU threads: {threads}").format(
            steps=report["steps"], threads=threads
        ),
    ]  # fmt: skip
    if report["cancelled"]:
        out.insert(0, "- **" + _tr("Cancelled: this report is partial.") + "**")
    return out


def _devices(report: dict[str, Any]) -> list[str]:
    headers = [_tr("Device"), _tr("Name"), _tr("Memory"), _tr("Free"),
               _tr("Largest single allocation"), _tr("Half precision (fp16)")]  # fmt: skip
    rows = [
        [device_name(d["name"]), d["description"], memory(d["total_bytes"]),
         memory(d["free_bytes"]), memory(d["max_alloc_bytes"]), yes_no(d["fp16"])]
        for d in report["devices"]
    ]  # fmt: skip
    out = ["## " + _tr("Devices"), "", *_table(headers, rows)]
    for d in report["devices"]:
        facts = "; ".join(f"{k}: {v}" for k, v in driver_facts(d).items())
        if facts:  # the driver's own words, quoted as they are
            out += ["", _tr("What the driver says about {device}: {facts}").format(
                device=device_name(d["name"]), facts=f"`{facts}`")]  # fmt: skip
    return out


def _diffuse(report: dict[str, Any]) -> list[str]:
    headers = [_tr("Device"), _tr("Size"), _tr("Flash attention off"), _tr("Flash attention on"),
               _tr("On ÷ off"), _tr("Memory planned (off / on)"),
               _tr("Memory used (off / on)")]  # fmt: skip
    rows = [
        [device_name(p.device), size_text(p.size), _measured(p.a, "s_per_step", per_step),
         _measured(p.b, "s_per_step", per_step),
         times(ratio(p.b.get("s_per_step"), p.a.get("s_per_step"))),
         _both(p.a, p.b, "planned_bytes"), _both(p.a, p.b, "measured_bytes")]
        for p in diffuse_pairs(report)
    ]  # fmt: skip
    return ["## " + _tr("Diffusion: seconds per step"), "", *_table(headers, rows)]


def _llm(report: dict[str, Any]) -> list[str]:
    cpu = llm_cpu_seconds(report)
    headers = [_tr("Device"), _tr("Time"), _tr("Compared with the CPU"), _tr("Memory planned"),
               _tr("Memory used")]  # fmt: skip
    rows = [
        [device_name(r["device"]), _measured(r, "wall_s", seconds),
         times(ratio(r.get("wall_s"), cpu)), memory(r.get("planned_bytes")),
         memory(r.get("measured_bytes"))]
        for r in llm_rows(report)
    ]  # fmt: skip
    return ["## " + _tr("The text encoder (LLM)"), "", *_table(headers, rows)]


def _vae(report: dict[str, Any]) -> list[str]:
    headers = [_tr("Device"), _tr("Not tiled"), _tr("Tiled"),
               _tr("Memory planned (not tiled / tiled)"),
               _tr("Memory used (not tiled / tiled)")]  # fmt: skip
    pairs: list[Pair] = vae_pairs(report)
    rows = [
        [device_name(p.device), _measured(p.a, "wall_s", seconds),
         _measured(p.b, "wall_s", seconds), _both(p.a, p.b, "planned_bytes"),
         _both(p.a, p.b, "measured_bytes")]
        for p in pairs
    ]  # fmt: skip
    title = _tr("The VAE decode at {size}").format(size=size_text(decode_size(report)))
    return ["## " + title, "", *_table(headers, rows)]


def _largest(report: dict[str, Any]) -> list[str]:
    w, h = decode_size(report)
    common = math.gcd(w, h) or 1  # the shape as a ratio: 1:1, not 1024:1024
    title = _tr("The largest size that fits (shape {w}:{h})").format(w=w // common, h=h // common)
    out = ["## " + title, ""]
    out += [_item(device_name(d), size_text(s)) for d, s in report["largest"].items()]
    return out


def _failed(report: dict[str, Any]) -> list[str]:
    out = []
    for r in failed_rows(report):
        failure = failure_of(r.get("failure") or {}, r["stage"], str(r["error"]))
        message = failure_text(failure) if r.get("failure") else str(r["error"])
        line = _tr("{stage} on {device}: {message}").format(
            stage=sentence(stage_name(r["stage"])), device=device_name(r["device"]), message=message
        )
        out.append("- " + line)
    return ["## " + _tr("Stages that failed"), "", *out] if out else []


def _choice(report: dict[str, Any]) -> list[str]:
    choice = report["choice"]
    lines = [_item(choice_label(k), choice_value(k, v)) for k, v in choice.items()]
    lines = lines or ["- " + _tr("None: nothing was measured.")]
    return ["## " + _tr("The settings it suggests"), "", *lines]


_SYSTEM_LABELS = {
    "os": "Operating system",
    "python": "Python",
    "ansi_encoding": "ANSI code page",
    "stdout_encoding": "Console encoding",
}


def _system(report: dict[str, Any]) -> list[str]:
    system = report.get("system") or {}
    lines = [_item(_tr(_SYSTEM_LABELS.get(k, k)), f"`{v}`") for k, v in system.items()]
    return ["## " + _tr("This computer"), "", *lines] if lines else []


def _unchecked(report: dict[str, Any]) -> list[str]:
    items = report.get("unchecked") or []
    if not items:
        return []
    title = _tr("Not checked before this release: please tell us what you see")
    return ["## " + title, "", *[f"- {_tr(item)}" for item in items]]


def report_markdown(report: dict[str, Any]) -> str:
    """The whole report in the user's language, as Markdown (rendered in the dialog)."""
    out = ["# " + _tr("Stepwise: measure of this computer"), "", *_summary(report)]
    for section in (_devices, _diffuse, _llm, _vae, _largest, _failed, _choice, _system,
                    _unchecked):  # fmt: skip
        lines = section(report)
        if lines:
            out += ["", *lines]
    return "\n".join(out) + "\n"
