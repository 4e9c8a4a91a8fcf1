"""The measure report (app/pipeline/measure/probe.py): the settings it would choose, the report as
JSON (format 1, for us) and as English Markdown beside it (for us to read; the CLI's), its
tables as data (`diffuse_pairs`, `vae_pairs`, …: the window renders them in the user's language,
ui/shell/measure_report.py), and applying the choice as this computer's defaults (Settings.job)
with the changes listed.

JSON, format 1: {"format": 1, "created": iso-8601, "seconds": float, "cancelled": bool,
 "engine": path, "models": {"note", "diffusion", "llm", "vae"}, "steps": int, "threads": int,
 "sizes": [[w, h], ...],
 "devices": [{"name", "description", "total_bytes", "free_bytes", "max_alloc_bytes", "fp16",
              "driver": {key: value of the backend's device line} | null}],
 "rows": [{"stage", "device", "size": [w, h] | null, "flash_attention": bool | null,
           "vae_tiling": bool | null, "planned_bytes", "measured_bytes", "wall_s",
           "s_per_step", "error"? (English), "failure"? {"kind", "message", "values", "fix"}
           (the error as data: probe.failure_data; the window words it)}],
 "largest": {device: [w, h] | null}, "choice": {param name: value}}
"""

from __future__ import annotations

import json
import locale
import platform as host
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core import platform
from app.core.atomic import write_text_atomic
from app.core.settings import JobValue, Settings
from app.engine.stage import Stage
from app.pipeline.execute.fit import CPU
from app.pipeline.job import params as P
from app.pipeline.measure.probe import Measurement

REPORT_FORMAT = 1
MIB = 1024 * 1024
CHOICE_PARAMS: tuple[P.Param[Any], ...] = (
    P.DIFFUSION_DEVICE,
    P.FLASH_ATTENTION,
    P.LLM_DEVICE,
    P.VAE_DEVICE,
    P.VAE_TILING,
)


# What the Windows release is not checked on before it ships (installer/wine_test.py runs it under
# wine, on Mesa's lavapipe): the report lists these on Windows, so a user's first report says.
UNCHECKED_ON_WINDOWS: tuple[str, ...] = (
    "the GPU maker's own Vulkan driver (AMD: the ~2 GB single-allocation limit; speed)",
    "SmartScreen on the unsigned setup .exe",
    "a console in the ANSI code page (cp936 on a Chinese Windows)",
    "display scaling (DPI) of the window",
)


def system_facts() -> dict[str, str]:
    """This computer: OS, Python, the ANSI code page, stdout's encoding (a report from Windows
    shows cp936 / cp1252 there)."""
    return {
        "os": host.platform(),
        "python": host.python_version(),
        "ansi_encoding": locale.getpreferredencoding(False),
        "stdout_encoding": str(getattr(sys.stdout, "encoding", None)),
    }


def unchecked_here() -> tuple[str, ...]:
    """What the release was not checked on, for this platform (nothing outside Windows)."""
    return UNCHECKED_ON_WINDOWS if platform.is_windows() else ()


def report_of(m: Measurement, seconds: float, cancelled: bool) -> dict[str, Any]:
    s = m.setup
    report: dict[str, Any] = {
        "format": REPORT_FORMAT,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "seconds": round(seconds, 1),
        "cancelled": cancelled,
        "engine": str(s.engine),
        "models": {"note": s.models_note, "diffusion": s.models.diffusion, "llm": s.models.llm,
                   "vae": s.models.vae},
        "steps": s.steps,
        "threads": s.threads,
        "sizes": [list(size) for size in s.sizes],
        "devices": [
            {"name": d.name.lower(), "description": d.description, "total_bytes": d.total_bytes,
             "free_bytes": d.free_bytes, "max_alloc_bytes": d.max_alloc_bytes, "fp16": d.fp16,
             "driver": m.driver.get(d.name.lower())}
            for d in m.devices
        ],
        "rows": m.rows,
        "largest": m.largest,
        "system": system_facts(),
        "unchecked": list(unchecked_here()),
    }  # fmt: skip
    report["choice"] = {} if cancelled else choose(report)
    return report


def _ok(rows: Iterable[dict[str, Any]], **match: object) -> list[dict[str, Any]]:
    return [r for r in rows if all(r.get(k) == v for k, v in match.items()) and r.get("wall_s")]


def _fits(report: dict[str, Any], row: dict[str, Any]) -> bool:
    device = next((d for d in report["devices"] if d["name"] == row["device"]), None)
    free, planned = (device or {}).get("free_bytes"), row.get("planned_bytes")
    return free is None or planned is None or planned <= free


def choose(report: dict[str, Any]) -> dict[str, JobValue]:
    """The settings the measurements favour: each model on its fastest device where the stage
    ran and its plan fits the device's free memory; flash attention where it was faster there;
    VAE tiling only where the untiled decode did not run or does not fit."""
    rows = report["rows"]
    choice: dict[str, JobValue] = {}
    largest = report["sizes"][-1] if report["sizes"] else None
    diffuse = [r for r in _ok(rows, stage=Stage.DIFFUSE, size=largest) if _fits(report, r)]
    if diffuse:
        best = min(diffuse, key=lambda r: r.get("s_per_step") or r["wall_s"])
        choice[P.DIFFUSION_DEVICE.name] = best["device"]
        choice[P.FLASH_ATTENTION.name] = bool(best["flash_attention"])
    llm = [r for r in _ok(rows, stage=Stage.LLM_ENCODE) if _fits(report, r)]
    if llm:
        choice[P.LLM_DEVICE.name] = min(llm, key=lambda r: r["wall_s"])["device"]
    untiled = [r for r in _ok(rows, stage=Stage.VAE_DECODE, vae_tiling=False) if _fits(report, r)]
    tiled = [r for r in _ok(rows, stage=Stage.VAE_DECODE, vae_tiling=True) if _fits(report, r)]
    vae = untiled or tiled
    if vae:
        choice[P.VAE_DEVICE.name] = min(vae, key=lambda r: r["wall_s"])["device"]
        choice[P.VAE_TILING.name] = not untiled
    return choice


@dataclass(frozen=True)
class Change:
    name: str  # the parameter's name (app/pipeline/job/params.py)
    old: JobValue
    new: JobValue


def changes_of(settings: Settings, choice: dict[str, JobValue]) -> list[Change]:
    out = []
    for param in CHOICE_PARAMS:
        if param.name in choice:
            old = settings.job.get(param.name, param.default)
            if old != choice[param.name]:
                out.append(Change(param.name, old, choice[param.name]))
    return out


def apply_choice(settings: Settings, choice: dict[str, JobValue]) -> list[Change]:
    """Makes the choice this computer's defaults (the job's remembered values); the changes."""
    changes = changes_of(settings, choice)
    for change in changes:
        settings.job[change.name] = change.new
    return changes


def write_report(report: dict[str, Any], folder: Path) -> tuple[Path, Path]:
    """measure-<time>.md and .json in `folder`, written atomically."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    md, js = folder / f"measure-{stamp}.md", folder / f"measure-{stamp}.json"
    folder.mkdir(parents=True, exist_ok=True)
    write_text_atomic(js, json.dumps(report, indent=1, ensure_ascii=False))
    write_text_atomic(md, markdown(report))
    return md, js


# -- the report's tables as data: this Markdown (English, for us) and the window (the user's
# language, ui/shell/measure_report.py) render the same facts.


@dataclass(frozen=True)
class Pair:
    """One measurement in its two variants on a device: diffuse with flash attention off (`a`)
    and on (`b`) at a size, or the VAE decode untiled (`a`) and tiled (`b`); {} where that
    variant did not run; a row with "error" failed."""

    device: str
    size: tuple[int, int] | None
    a: dict[str, Any]
    b: dict[str, Any]


def _row(rows: list[dict[str, Any]], **match: object) -> dict[str, Any]:
    return next((r for r in rows if all(r.get(k) == v for k, v in match.items())), {})


def ratio(a: object, b: object) -> float | None:
    """a ÷ b where both were measured (None otherwise)."""
    ok = isinstance(a, int | float) and isinstance(b, int | float) and b
    return a / b if ok else None  # type: ignore[operator]


def driver_facts(device: dict[str, Any]) -> dict[str, str]:
    """The backend's own facts of a device (its line of `--list-devices`), as it words them."""
    driver = device.get("driver") or {}
    return {k: v for k, v in driver.items() if k not in ("backend", "device")}


def diffuse_pairs(report: dict[str, Any]) -> list[Pair]:
    rows, out = report["rows"], []
    for d in report["devices"]:
        for size in report["sizes"]:
            match = {"stage": Stage.DIFFUSE, "device": d["name"], "size": size}
            off = _row(rows, **match, flash_attention=False)
            on = _row(rows, **match, flash_attention=True)
            if off or on:
                out.append(Pair(d["name"], (size[0], size[1]), off, on))
    return out


def llm_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in report["rows"] if r["stage"] == Stage.LLM_ENCODE]


def llm_cpu_seconds(report: dict[str, Any]) -> float | None:
    """The text encoder's time on the CPU (what the others are compared with)."""
    return _row(report["rows"], stage=Stage.LLM_ENCODE, device=CPU).get("wall_s")


def decode_size(report: dict[str, Any]) -> tuple[int, int]:
    """The size the VAE decode and the largest size that fits were measured at."""
    big = report["sizes"][-1] if report["sizes"] else [0, 0]
    return big[0], big[1]


def vae_pairs(report: dict[str, Any]) -> list[Pair]:
    rows, out = report["rows"], []
    for d in report["devices"]:
        un = _row(rows, stage=Stage.VAE_DECODE, device=d["name"], vae_tiling=False)
        ti = _row(rows, stage=Stage.VAE_DECODE, device=d["name"], vae_tiling=True)
        if un or ti:
            out.append(Pair(d["name"], decode_size(report), un, ti))
    return out


def failed_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in report["rows"] if "error" in r]


def _mib(n: object) -> str:
    return f"{n / MIB:,.0f}" if isinstance(n, int | float) else "-"


def _s(n: object, digits: int = 3) -> str:
    return f"{n:.{digits}g}" if isinstance(n, int | float) else "-"


def _val(row: dict[str, Any], key: str) -> str:
    return "failed" if "error" in row else _s(row.get(key))


def _ratio(a: object, b: object) -> str:
    r = ratio(a, b)
    return "-" if r is None else f"{r:.2f}"


def markdown(report: dict[str, Any]) -> str:
    """The report in English (the file beside the JSON, and the CLI's): for us to read."""
    m = report["models"]
    out = [
        "# Stepwise: measure of this computer",
        "",
        f"- created {report['created']}, took {report['seconds']} s"
        + (" — **cancelled, partial**" if report["cancelled"] else ""),
        f"- engine: `{report['engine']}`",
        f"- models ({m['note']}): `{Path(m['diffusion']).name}`, `{Path(m['llm']).name}`, "
        f"`{Path(m['vae']).name}`",
        f"- {report['steps']} steps per diffuse run, threads {report['threads'] or 'auto'}",
        "",
        "## Devices",
        "",
        "| device | description | memory MiB | free MiB | largest allocation MiB | fp16 | "
        "driver line |",
        "|---|---|---|---|---|---|---|",
    ]
    for d in report["devices"]:
        line = "; ".join(f"{k}: {v}" for k, v in driver_facts(d).items())
        out.append(
            f"| {d['name']} | {d['description']} | {_mib(d['total_bytes'])} | "
            f"{_mib(d['free_bytes'])} | {_mib(d['max_alloc_bytes'])} | {d['fp16']} | "
            f"{line or '-'} |"
        )
    out += ["", "## Diffuse, s/step (flash attention off / on)", "",
            "| device | size | off s/step | on s/step | on ÷ off | planned MiB off / on | "
            "measured MiB off / on |", "|---|---|---|---|---|---|---|"]  # fmt: skip
    for p in diffuse_pairs(report):
        off, on, size = p.a, p.b, p.size or (0, 0)
        out.append(
            f"| {p.device} | {size[0]}×{size[1]} | {_val(off, 's_per_step')} | "
            f"{_val(on, 's_per_step')} | "
            f"{_ratio(on.get('s_per_step'), off.get('s_per_step'))} | "
            f"{_mib(off.get('planned_bytes'))} / {_mib(on.get('planned_bytes'))} | "
            f"{_mib(off.get('measured_bytes'))} / {_mib(on.get('measured_bytes'))} |"
        )
    cpu = llm_cpu_seconds(report)
    out += ["", "## llm-encode (the text encoder)", "",
            "| device | wall s | ÷ CPU | planned MiB | measured MiB |",
            "|---|---|---|---|---|"]  # fmt: skip
    for r in llm_rows(report):
        out.append(
            f"| {r['device']} | {_val(r, 'wall_s')} | {_ratio(r.get('wall_s'), cpu)} | "
            f"{_mib(r.get('planned_bytes'))} | {_mib(r.get('measured_bytes'))} |"
        )
    big = decode_size(report)
    out += ["", f"## VAE decode at {big[0]}×{big[1]} (untiled / tiled)", "",
            "| device | untiled s | tiled s | planned MiB untiled / tiled | "
            "measured MiB untiled / tiled |", "|---|---|---|---|---|"]  # fmt: skip
    for p in vae_pairs(report):
        un, ti = p.a, p.b
        out.append(
            f"| {p.device} | {_val(un, 'wall_s')} | {_val(ti, 'wall_s')} | "
            f"{_mib(un.get('planned_bytes'))} / {_mib(ti.get('planned_bytes'))} | "
            f"{_mib(un.get('measured_bytes'))} / {_mib(ti.get('measured_bytes'))} |"
        )
    out += ["", f"## The largest size of {big[0]}:{big[1]} that fits", ""]
    for device, size in report["largest"].items():
        out.append(f"- {device}: " + (f"{size[0]}×{size[1]}" if size else "unknown"))
    failed = failed_rows(report)
    if failed:
        out += ["", "## Stages that failed", ""]
        out += [f"- {r['stage']} on {r['device']}: {r['error']}" for r in failed]
    out += ["", "## The settings it would choose", ""]
    out += [f"- {k} = {v}" for k, v in report["choice"].items()] or ["- (none: nothing ran)"]
    system = report.get("system") or {}
    if system:
        out += ["", "## This computer", ""]
        out += [f"- {k}: {v}" for k, v in system.items()]
    if report.get("unchecked"):
        out += ["", "## Not checked before release: please say what you see", ""]
        out += [f"- {item}" for item in report["unchecked"]]
    return "\n".join(out) + "\n"
