"""Edit presets: add an object, remove an object, replace the background, free.

A preset is a starting point, not a mode: it sets the fill, the strength, whether the photo is
klein's first reference (source_ref) and, for the edits that need words, a prompt template;
everything stays editable afterwards. The GUI's preset combo (ui/generation/edit_preset.py)
writes these values into the job form; `run --preset NAME` applies them before the flags, so
a flag given beside it wins. This table is the one owner of what each preset sets.

A template may hold one `[slot]` the user replaces (the GUI selects it; `run` refuses to start
with it unfilled). Templates stay English: they are what the text encoder reads, not UI text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from app.pipeline.job import params as P

SLOT = re.compile(r"\[[^\[\]]+\]")


@dataclass(frozen=True)
class Preset:
    """What one preset sets. fills: the fill names it prefers, the first one the FILL row
    offers is taken (then FALLBACK_FILL); prompt "": the prompt is left as it is."""

    name: str
    fills: tuple[str, ...]
    strength: float
    source_ref: bool
    prompt: str = ""

    def fill(self) -> str:
        offered = P.FILL.choices or ()
        return next((f for f in self.fills if f in offered), FALLBACK_FILL)

    def values(self) -> dict[str, Any]:
        """The parameter values (Param.name → value) the preset sets."""
        out: dict[str, Any] = {
            P.FILL.name: self.fill(),
            P.STRENGTH.name: float(self.strength),
            P.SOURCE_REF.name: self.source_ref,
        }
        if self.prompt:
            out[P.PROMPT.name] = self.prompt
        return out


FALLBACK_FILL = "blur"  # in every version of the FILL row

# "remove" fills the hole from its surroundings (telea where the FILL row has it) and shows klein
# the photo, so what it paints continues what is around; "add" and "background" start the new
# content from grey (nothing of the old steers it) with the photo as the reference for light,
# perspective and style; "free" is the table's defaults and the user's own prompt.
PRESETS: tuple[Preset, ...] = (
    Preset(
        "add", ("grey",), 1.0, True,
        "a [describe the object], in the same light, perspective and style as the photo",
    ),
    Preset(
        "remove", ("telea", "blur"), 1.0, True,
        "empty background, seamless continuation of the surroundings",
    ),
    Preset(
        "background", ("grey",), 1.0, True,
        "[describe the new background], behind the unchanged subject, in matching light",
    ),
    Preset("free", (str(P.FILL.default),), float(P.STRENGTH.default), bool(P.SOURCE_REF.default)),
)  # fmt: skip
BY_NAME: dict[str, Preset] = {p.name: p for p in PRESETS}
PRESET_NAMES: tuple[str, ...] = tuple(BY_NAME)


def preset(name: str) -> Preset:
    """The preset called `name` (KeyError names the unknown one)."""
    return BY_NAME[name]


def slot(prompt: str) -> tuple[int, int] | None:
    """(start, end) of the first `[slot]` left in a prompt; None when there is none."""
    found = SLOT.search(prompt)
    return None if found is None else found.span()


def with_preset(
    values: dict[str, Any], name: str, given: frozenset[str] | set[str] = frozenset()
) -> dict[str, Any]:
    """`values` with the preset's applied, except the names in `given` (what the user set
    explicitly wins over the preset)."""
    out = dict(values)
    out.update({k: v for k, v in preset(name).values().items() if k not in given})
    return out
