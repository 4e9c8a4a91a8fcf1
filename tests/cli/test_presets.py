"""Edit presets (app/pipeline/job/presets.py): each sets its fill, strength, source reference and
prompt template; `run --preset` applies them before the flags, so a flag given beside it wins;
a template's unfilled [slot] is refused with a message; and a real run with a preset reaches
the engine with the photo as its first reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli.parser import build_parser
from app.cli.run_flags import values_from_args
from app.core.errors import StepwiseError
from app.engine.tensorfile import read_tensors
from app.pipeline.job import params as P
from app.pipeline.job.presets import FALLBACK_FILL, PRESET_NAMES, PRESETS, preset, slot, with_preset
from tests.cli.conftest import run_cli, status_json

MODELS = ["--diffusion-model", "d", "--llm", "l", "--vae", "v"]


def _values(*flags: str) -> dict:
    args = build_parser().parse_args(["run", *MODELS, *flags])
    return values_from_args(args, None)[0]


def test_the_table_has_the_four_presets_with_valid_values() -> None:
    assert PRESET_NAMES == ("add", "remove", "background", "free")
    for p in PRESETS:
        for name, value in p.values().items():
            assert P.check_value(P.BY_NAME[name], value) == (True, value), (p.name, name)
    assert preset("free").values() == {
        "fill": P.FILL.default,
        "strength": P.STRENGTH.default,
        "source_ref": P.SOURCE_REF.default,
    }  # free leaves the prompt alone


def test_remove_prefers_telea_and_falls_back_to_blur(monkeypatch: pytest.MonkeyPatch) -> None:
    offered = P.FILL.choices or ()
    assert preset("remove").fill() == ("telea" if "telea" in offered else FALLBACK_FILL)
    monkeypatch.setattr(P, "FILL", P.Param(**{**P.FILL.__dict__, "choices": ("grey", "blur")}))
    assert preset("remove").fill() == "blur"
    monkeypatch.setattr(
        P, "FILL", P.Param(**{**P.FILL.__dict__, "choices": ("grey", "telea", "blur")})
    )
    assert preset("remove").fill() == "telea"


def test_a_preset_sets_its_values() -> None:
    values = _values("--preset", "remove")
    assert values["source_ref"] is True and values["strength"] == 1.0
    assert values["fill"] == preset("remove").fill()
    assert values["prompt"] == "empty background, seamless continuation of the surroundings"
    assert _values()["source_ref"] is False  # no preset: the table's default
    back = _values("--preset", "background", "-p", "a beach at dusk")
    assert (back["fill"], back["source_ref"]) == ("grey", True)


def test_explicit_flags_win_over_the_preset() -> None:
    values = _values(
        "--preset", "remove", "--strength", "0.6", "--no-source-ref", "--fill", "none",
        "-p", "a wall",
    )  # fmt: skip
    assert (values["strength"], values["source_ref"], values["fill"]) == (0.6, False, "none")
    assert values["prompt"] == "a wall"
    # The flag order does not matter: the preset never overrides a given flag.
    values = _values("--strength", "0.3", "--preset", "remove")
    assert values["strength"] == 0.3 and values["source_ref"] is True
    # with_preset, the same rule for any caller: names given are kept.
    kept = with_preset({"fill": "none", "strength": 0.5}, "add", given={"strength"})
    assert kept["strength"] == 0.5 and kept["fill"] == "grey"


def test_a_template_with_a_slot_needs_a_prompt() -> None:
    template = preset("add").prompt
    span = slot(template)
    assert span is not None and template[span[0] : span[1]] == "[describe the object]"
    with pytest.raises(StepwiseError) as caught:
        _values("--preset", "add")
    assert "needs words for its prompt" in caught.value.user_message()
    assert "--prompt" in caught.value.user_message()
    assert _values("--preset", "add", "-p", "a red bicycle")["prompt"] == "a red bicycle"
    assert slot(preset("remove").prompt) is None


def test_run_with_a_preset_gives_klein_the_photo(tmp_path: Path, model_args, inputs) -> None:
    image, mask = inputs
    run_dir = tmp_path / "remove"
    done = run_cli(
        "run", *model_args, "-i", image, "--mask", mask, "--run-dir", run_dir,
        "--preset", "remove", "--steps", "1", "-t", "1", "--preview", "none",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    params = status_json(run_dir)["params"]
    assert params["source_ref"] is True and params["fill"] == preset("remove").fill()
    assert params["prompt"] == preset("remove").prompt
    assert sorted(read_tensors(run_dir / "ref_latents.bin")) == ["ref_0"]
    refused = run_cli("run", *model_args, "-i", image, "--mask", mask, "--preset", "add")
    assert refused.returncode != 0 and "--prompt" in refused.stderr + refused.stdout
    assert "Traceback" not in refused.stderr
