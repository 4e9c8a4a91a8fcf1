"""`sd-stage --list-samplers`: the strict parser on recorded output, then the real engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.engine.catalog import Catalog, Sampler, list_catalog, parse_catalog
from app.engine.errors import ProtocolError

# Recorded from sd-stage --list-samplers (CPU build, 2026-12-01).
RECORDED = (
    b'{"samplers":[{"name":"euler","resumable":true},{"name":"euler_a","resumable":true},'
    b'{"name":"heun","resumable":true},{"name":"dpm2","resumable":true},'
    b'{"name":"dpm++2s_a","resumable":true},{"name":"dpm++2m","resumable":false},'
    b'{"name":"dpm++2mv2","resumable":false},{"name":"ipndm","resumable":false},'
    b'{"name":"ipndm_v","resumable":false},{"name":"lcm","resumable":false},'
    b'{"name":"ddim_trailing","resumable":false},{"name":"tcd","resumable":false},'
    b'{"name":"res_multistep","resumable":false},{"name":"res_2s","resumable":false},'
    b'{"name":"er_sde","resumable":false}],"schedulers":["discrete","karras","exponential",'
    b'"ays","gits","sgm_uniform","simple","smoothstep","kl_optimal","lcm","bong_tangent"]}\n'
)
ENGINE = Path("/opt/sd-stage")


def test_recorded_output_parses() -> None:
    catalog = parse_catalog(b"some log line\n" + RECORDED, ENGINE)
    assert catalog.samplers[0] == Sampler("euler", True)
    assert {s.name for s in catalog.samplers if s.resumable} == {
        "euler",
        "euler_a",
        "heun",
        "dpm2",
        "dpm++2s_a",
    }
    assert Sampler("dpm++2m", False) in catalog.samplers
    assert Sampler("ipndm", False) in catalog.samplers
    assert catalog.schedulers[0] == "discrete" and "simple" in catalog.schedulers


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b"not json",
        b"[]",
        b'{"samplers": {}, "schedulers": []}',
        b'{"samplers": [{"name": "euler"}], "schedulers": []}',  # resumable missing
        b'{"samplers": [{"name": "euler", "resumable": "yes"}], "schedulers": []}',
        b'{"samplers": [{"name": "eu ler", "resumable": true}], "schedulers": []}',
        b'{"samplers": [{"name": "euler", "resumable": true}], "schedulers": [3]}',
        b'{"samplers": [], "schedulers": ["simple"]}',
        b'{"samplers": [{"name": "a", "resumable": true}, {"name": "a", "resumable": false}],'
        b' "schedulers": []}',
    ],
)
def test_bad_output_is_refused_with_a_clear_error(text: bytes) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_catalog(text, ENGINE)
    assert str(ENGINE) in info.value.user_message()
    assert "native/build.py" in info.value.user_message()


def test_too_many_entries_are_refused() -> None:
    data = {
        "samplers": [{"name": f"s{i}", "resumable": True} for i in range(5000)],
        "schedulers": [],
    }
    with pytest.raises(ProtocolError):
        parse_catalog(json.dumps(data).encode(), ENGINE)


def test_a_missing_engine_is_a_protocol_error(tmp_path: Path) -> None:
    with pytest.raises(ProtocolError):
        list_catalog(tmp_path / "no-such-sd-stage")


def test_the_real_engine_lists_its_samplers(sd_stage: Path) -> None:
    catalog = list_catalog(sd_stage)
    assert isinstance(catalog, Catalog)
    names = {s.name for s in catalog.samplers}
    assert {"euler", "euler_a", "dpm++2m", "ipndm"} <= names
    resumable = {s.name for s in catalog.samplers if s.resumable}
    assert "euler" in resumable and "dpm++2m" not in resumable
    assert {"simple", "discrete"} <= set(catalog.schedulers)


def test_pipeline_catalog_is_memoised_per_binary(sd_stage: Path, monkeypatch) -> None:
    from app.core.paths import app_paths
    from app.pipeline import runner
    from app.pipeline.api import EngineCatalog
    from app.pipeline.runner import Pipeline

    pipeline = Pipeline(app_paths(), sd_stage, cache_limit_mb=16)
    first = pipeline.catalog()
    assert isinstance(first, EngineCatalog) and "euler" in first.resumable
    assert "dpm++2m" not in first.resumable
    calls = []
    monkeypatch.setattr(runner, "list_catalog", lambda *a: calls.append(a))
    assert pipeline.catalog() is first and calls == []
