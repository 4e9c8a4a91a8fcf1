"""The workspace's line of what colour match did to a result (the run's record), every case
of Drift.as_record, in English and in Simplified Chinese."""

from __future__ import annotations

import numpy as np

from app.imaging.drift import NO_WITNESS, TINY_RING, Drift, declined
from app.ui.workspace.match_line import color_match_line


def _applied(offset: tuple[float, float, float]) -> dict:
    return Drift(np.float32(offset), 0.9, slope=0.97, valid=0.99).as_record()


def test_each_record_reads_as_one_line(qapp) -> None:
    assert color_match_line(None) == ""
    line = color_match_line(_applied((3.0, 4.0, 0.0)))
    assert "5.0 LAB units" in line and "L +3.0" in line and "90 %" in line and "0.97" in line
    assert "no drift" in color_match_line(_applied((0.2, 0.1, 0.0)))
    slope = declined(NO_WITNESS, slope=0.39, source="inner").as_record()
    assert "texture (slope 0.39)" in color_match_line(slope)
    assert "only 6 unmasked" in color_match_line(declined(TINY_RING, n=6).as_record())
    assert color_match_line({"applied": False, "reason": "other"}).startswith("Colour match left")
    assert color_match_line({"applied": True, "offset_lab": "bad"}) == ""  # a damaged record


def test_every_line_has_a_chinese_translation(monkeypatch) -> None:
    from pathlib import Path

    from app.ui.words.i18n import TRANSLATIONS_DIR, read_ts
    from tests.ui import test_generation_translations as scan

    source = Path(__file__).resolve().parents[2] / "app" / "ui" / "workspace" / "match_line.py"
    monkeypatch.setattr(scan, "FILES", [source])
    sources = scan._sources()
    table: dict[tuple[str, str], str] = {}
    for ts in sorted((TRANSLATIONS_DIR / "zh_CN").glob("*.ts")):
        table.update(read_ts(ts))
    assert len(sources) == 6 and [s for s in sources if s not in table] == []
    for key in sources:
        assert sorted(scan.PLACEHOLDER.findall(key[1])) == sorted(
            scan.PLACEHOLDER.findall(table[key])
        ), key
