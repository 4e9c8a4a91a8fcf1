"""`sd-stage --plan` (native/PROTOCOL.md, "Plan") against the real runs on the tiny models: the
compute buffer each runner reserves, as the real run logs it, within 5 % (it is the same
allocator on the same graph, so in practice equal), per stage, at three sizes, with and without
flash attention and VAE tiling; the plan reads no weights; bad flags are refused as in a run."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.engine.argv import (
    CommonArgs,
    DiffuseArgs,
    LlmEncodeArgs,
    VaeDecodeArgs,
    VaeEncodeArgs,
)
from app.engine.devices import list_devices
from app.engine.errors import ModelLoadError, UsageError
from app.engine.plan import plan_stage
from app.engine.tensorfile import write_tensors
from tests.engine.memory_probe import measure, plan, planned_first_compute, planned_weights

SIZES = [(128, 128), (256, 128), (192, 320)]
TOLERANCE = 0.05
MIB = 1024 * 1024
PROMPTS = ["a fox", "a red fox in the snow, " * 8, "a lighthouse at dusk, waves, " * 30]


def _common(**switches) -> CommonArgs:
    return CommonArgs(threads=1, **switches)


@pytest.fixture(scope="module")
def cond(sd_stage: Path, tiny_models, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plan-cond") / "cond.bin"
    args = LlmEncodeArgs(llm=tiny_models.llm, prompt="a fox", save_embeddings=out, common=_common())
    assert measure(sd_stage, args.to_argv()).returncode == 0
    return out


def _assert_plan_matches(report: dict, measured, *, weights: bool = True) -> None:
    assert measured.returncode == 0, measured.log
    planned = planned_first_compute(report)
    assert planned, report
    assert set(planned) == set(measured.compute), (planned, measured.compute)
    for name, real in measured.compute.items():
        assert abs(planned[name] - real) <= TOLERANCE * real, (name, planned[name], real)
    if weights:
        for name, real in measured.params.items():
            # the log prints MB with two decimals
            assert abs(planned_weights(report)[name] - real) <= 0.01 * MIB, (name, real)
    device = report["devices"][0]
    assert device["device"] == "cpu"
    assert device["total_bytes"] == device["weights_bytes"] + device["compute_bytes"]
    assert device["largest_tensor_bytes"] <= device["largest_alloc_bytes"]
    assert device["compute_bytes"] >= max(planned.values())


def _diffuse(models, cond: Path, out: Path, w: int, h: int, **switches) -> DiffuseArgs:
    return DiffuseArgs(
        diffusion_model=models.diffusion,
        load_embeddings=cond,
        width=w,
        height=h,
        steps=1,
        seed=1,
        save_latent=out / "final.bin",
        checkpoint_dir=out / "checkpoints",
        common=_common(**switches),
    )


@pytest.mark.parametrize("fa", [False, True], ids=["no-fa", "fa"])
def test_diffuse_plan_matches_the_real_run(sd_stage, tiny_models, cond, tmp_path, fa) -> None:
    computes = []
    for w, h in SIZES:
        out = tmp_path / f"{w}x{h}"
        argv = _diffuse(tiny_models, cond, out, w, h, flash_attention=fa).to_argv()
        report, _ = plan(sd_stage, argv)
        assert (report["stage"], report["width"], report["height"]) == ("diffuse", w, h)
        assert report["switches"]["diffusion_fa"] is fa
        assert report["tokens"] > 0
        assert not out.exists()  # the plan writes nothing, not even the folders
        _assert_plan_matches(report, measure(sd_stage, argv))
        computes.append(report["devices"][0]["compute_bytes"])
    assert computes[0] < computes[1]  # more pixels, more compute


def test_flash_attention_changes_the_planned_graph(sd_stage, tiny_models, cond, tmp_path):
    """FA drops the L x L attention scores from the graph (at the tiny models' small hidden size
    its f16 copies of K and V cost more than that saves; at klein-9B FA needs 40-60 % less,
    issue 11; both match the real runs above)."""
    w, h = SIZES[-1]
    plain, _ = plan(sd_stage, _diffuse(tiny_models, cond, tmp_path, w, h).to_argv())
    fa, _ = plan(
        sd_stage, _diffuse(tiny_models, cond, tmp_path, w, h, flash_attention=True).to_argv()
    )
    assert fa["devices"][0]["compute_bytes"] != plain["devices"][0]["compute_bytes"]
    assert fa["devices"][0]["weights_bytes"] == plain["devices"][0]["weights_bytes"]


def test_diffuse_plan_without_the_conditioning_file(sd_stage, tiny_models, cond, tmp_path):
    """Planned before llm-encode ran: the conditioning is --plan-tokens long (512 by default,
    the length klein's encoder pads every prompt to, so the default is exact)."""
    w, h = SIZES[1]
    missing = tmp_path / "not-yet.bin"
    args = _diffuse(tiny_models, missing, tmp_path, w, h)
    full, _ = plan(sd_stage, args.to_argv())
    short, _ = plan(sd_stage, args.to_argv() + ["--plan-tokens", "16"])
    real, _ = plan(sd_stage, _diffuse(tiny_models, cond, tmp_path, w, h).to_argv())
    assert (full["tokens"], short["tokens"]) == (512, 16)
    assert short["devices"][0]["compute_bytes"] < full["devices"][0]["compute_bytes"]
    assert real["tokens"] == 512
    assert real["devices"] == full["devices"]
    assert not missing.exists()


def _latent(path: Path, w: int, h: int) -> Path:
    rng = np.random.default_rng(3)
    write_tensors(path, {"latent": rng.standard_normal((1, 128, h // 16, w // 16), np.float32)})
    return path


@pytest.mark.parametrize("tiling", [False, True], ids=["untiled", "tiled"])
def test_vae_decode_plan_matches_the_real_run(sd_stage, tiny_models, tmp_path, tiling) -> None:
    switches = {"vae_tiling": True, "vae_tile_size": 4} if tiling else {}
    for w, h in SIZES:
        latent = _latent(tmp_path / f"latent-{w}x{h}.bin", w, h)
        args = VaeDecodeArgs(
            vae=tiny_models.vae,
            load_latent=latent,
            output=tmp_path / "out.png",
            common=_common(**switches),
        )
        report, _ = plan(sd_stage, args.to_argv())
        assert (report["width"], report["height"]) == (w, h)
        assert report["switches"]["vae_tiling"] is tiling
        assert not (tmp_path / "out.png").exists()
        runner = report["runners"][0]
        assert runner["graphs"] > 1 if tiling else runner["graphs"] == 1
        _assert_plan_matches(report, measure(sd_stage, args.to_argv()))
        (tmp_path / "out.png").unlink()


def test_vae_decode_plan_before_the_latent_exists(sd_stage, tiny_models, tmp_path) -> None:
    w, h = SIZES[2]
    real_latent = _latent(tmp_path / "real.bin", w, h)
    args = VaeDecodeArgs(vae=tiny_models.vae, load_latent=real_latent, output=tmp_path / "o.png")
    real, _ = plan(sd_stage, args.to_argv())
    missing = VaeDecodeArgs(
        vae=tiny_models.vae, load_latent=tmp_path / "x.bin", output=tmp_path / "o.png"
    )
    planned, _ = plan(sd_stage, missing.to_argv() + ["-W", str(w), "-H", str(h)])
    assert planned["devices"] == real["devices"]
    with pytest.raises(UsageError, match="-W and -H"):
        plan_stage(sd_stage, missing.to_argv())


@pytest.mark.parametrize("tiling", [False, True], ids=["untiled", "tiled"])
def test_vae_encode_plan_matches_the_real_run(sd_stage, tiny_models, tmp_path, tiling) -> None:
    switches = {"vae_tiling": True, "vae_tile_size": 4} if tiling else {}
    image = tmp_path / "in.png"
    Image.fromarray(np.random.default_rng(5).integers(0, 256, (96, 80, 3), np.uint8)).save(image)
    for w, h in SIZES:
        args = VaeEncodeArgs(
            vae=tiny_models.vae,
            width=w,
            height=h,
            init_image=image,
            save_latent=tmp_path / "init.bin",
            common=_common(**switches),
        )
        report, _ = plan(sd_stage, args.to_argv())
        assert (report["width"], report["height"], report["images"]) == (w, h, 1)
        assert not (tmp_path / "init.bin").exists()
        _assert_plan_matches(report, measure(sd_stage, args.to_argv()))
        (tmp_path / "init.bin").unlink()


def test_llm_encode_plan_matches_the_real_run(sd_stage, tiny_models, tmp_path) -> None:
    computes = []
    for prompt in PROMPTS:
        args = LlmEncodeArgs(
            llm=tiny_models.llm, prompt=prompt, save_embeddings=tmp_path / "c.bin", common=_common()
        )
        report, _ = plan(sd_stage, args.to_argv())
        assert not (tmp_path / "c.bin").exists()
        _assert_plan_matches(report, measure(sd_stage, args.to_argv()))
        (tmp_path / "c.bin").unlink()
        computes.append(report["devices"][0]["compute_bytes"])
    assert computes[0] == computes[2]  # every prompt is padded to the 512-token window


def test_plan_stage_parses_the_engines_plan(sd_stage, tiny_models, cond, tmp_path) -> None:
    w, h = SIZES[0]
    plan_ = plan_stage(sd_stage, _diffuse(tiny_models, cond, tmp_path, w, h).to_argv())
    cpu = plan_.on("cpu")
    assert cpu is not None and plan_.stage == "diffuse" and (plan_.width, plan_.height) == (w, h)
    assert cpu.weights_bytes > 0 and cpu.compute_bytes > 0
    assert cpu.total_bytes == cpu.weights_bytes + cpu.compute_bytes
    assert plan_.switches["diffusion_fa"] is False


def test_plan_reads_no_weight_data(sd_stage, tiny_models, cond, tmp_path) -> None:
    """A DiT whose tensor data is cut off: the plan still works (only the header is read),
    the same as on the whole file; the real run refuses the file."""
    cut = tmp_path / "cut-dit.gguf"
    size = tiny_models.diffusion.stat().st_size
    with open(tiny_models.diffusion, "rb") as src, open(cut, "wb") as dst:
        dst.write(src.read(size // 4))
    w, h = SIZES[0]
    whole, _ = plan(sd_stage, _diffuse(tiny_models, cond, tmp_path, w, h).to_argv())
    args = _diffuse(tiny_models, cond, tmp_path, w, h)
    args = DiffuseArgs(**{**args.__dict__, "diffusion_model": cut})
    truncated, _ = plan(sd_stage, args.to_argv())
    assert truncated["devices"] == whole["devices"]
    real = measure(sd_stage, args.to_argv())
    assert real.returncode == 3, real.log


def test_plan_refuses_bad_flags_like_the_run(sd_stage, tiny_models, cond, tmp_path) -> None:
    args = _diffuse(tiny_models, cond, tmp_path, *SIZES[0]).to_argv()
    steps = args.index("--steps") + 1
    with pytest.raises(UsageError, match="bad generation flags") as refused:
        plan_stage(sd_stage, args[:steps] + ["0"] + args[steps + 1 :])
    assert "sample_steps must be greater than 0" in refused.value.stderr_tail
    with pytest.raises(UsageError, match="--preview 'bogus': use none, proj or vae"):
        plan_stage(sd_stage, args + ["--preview", "bogus"])
    with pytest.raises(UsageError):
        plan_stage(sd_stage, args + ["--no-such-flag"])
    wrong = [str(tiny_models.vae) if a == str(tiny_models.diffusion) else a for a in args]
    with pytest.raises(ModelLoadError, match="--diffusion-model"):
        plan_stage(sd_stage, wrong)


def test_the_klein_default_cfg_is_one(sd_stage, tiny_models, cond, tmp_path) -> None:
    """Run by hand without --cfg-scale, a klein stage uses 1 (no negative prompt) and says so."""
    args = _diffuse(tiny_models, cond, tmp_path, *SIZES[0]).to_argv()
    i = args.index("--cfg-scale")
    without = args[:i] + args[i + 2 :]
    report, _ = plan(sd_stage, without)
    assert report["switches"]["cfg_scale"] == 1.0
    seven, _ = plan(
        sd_stage, [*without, "--cfg-scale", "7"] + ["--load-embeddings", str(tmp_path / "none.bin")]
    )
    assert seven["switches"]["cfg_scale"] == 7.0
    assert seven["runners"][0]["graphs"] == 2  # cond and uncond pass
    run = measure(sd_stage, without)
    assert run.returncode == 0, run.log
    assert "no --cfg-scale given: using 1" in run.log


# ---- Vulkan on lavapipe --------------------------------------------------------------------------

CAP = 3 * MIB + 12345


def _lavapipe(**extra: str) -> dict[str, str]:
    return {**os.environ, "GGML_VK_VISIBLE_DEVICES": "0", **extra}


def _vulkan_devices(binary: Path, env: dict[str, str]):
    devices = [d for d in list_devices(binary, env) if d.name.startswith("Vulkan")]
    if not devices:
        pytest.skip("no Vulkan device (no ICD such as Mesa's lavapipe installed)")
    return devices


def test_vulkan_device_facts_follow_the_forced_cap(sd_stage_vulkan) -> None:
    free = _vulkan_devices(sd_stage_vulkan, _lavapipe())[0]
    assert free.total_bytes and free.total_bytes > 0
    assert free.free_bytes is not None and 0 < free.free_bytes <= free.total_bytes
    assert free.max_alloc_bytes and free.max_alloc_bytes > CAP
    assert isinstance(free.fp16, bool)
    capped = _vulkan_devices(
        sd_stage_vulkan, _lavapipe(GGML_VK_FORCE_MAX_ALLOCATION_SIZE=str(CAP))
    )[0]
    assert capped.max_alloc_bytes == CAP
    assert capped.total_bytes == free.total_bytes


def test_vulkan_plan_matches_the_real_run_and_models_the_chunks(
    sd_stage_vulkan, tiny_models, tmp_path
) -> None:
    _vulkan_devices(sd_stage_vulkan, _lavapipe())
    w, h = SIZES[2]
    latent = _latent(tmp_path / "latent.bin", w, h)
    args = VaeDecodeArgs(
        vae=tiny_models.vae, load_latent=latent, output=tmp_path / "o.png", common=_common()
    )
    free, _ = plan(sd_stage_vulkan, args.to_argv(), _lavapipe())
    whole = next(d for d in free["devices"] if d["device"] == "vulkan0")
    assert whole["largest_alloc_bytes"] >= whole["compute_bytes"]  # one buffer under 1 GiB
    cap = whole["compute_bytes"] // 3  # a few chunks (ggml keeps at most 16)
    env = _lavapipe(GGML_VK_FORCE_MAX_ALLOCATION_SIZE=str(cap))
    report, _ = plan(sd_stage_vulkan, args.to_argv(), env)
    vk = next(d for d in report["devices"] if d["device"] == "vulkan0")
    # buffers are cut into chunks of at most the cap, unless one tensor is larger
    assert vk["largest_alloc_bytes"] <= max(cap, vk["largest_tensor_bytes"] + 4096)
    assert vk["largest_alloc_bytes"] < whole["largest_alloc_bytes"]
    assert vk["largest_tensor_bytes"] == whole["largest_tensor_bytes"]
    measured = measure(sd_stage_vulkan, args.to_argv(), env)
    assert measured.returncode == 0, measured.log
    planned = planned_first_compute(report)
    for name, real in measured.compute.items():
        assert abs(planned[name] - real) <= TOLERANCE * real, (name, planned[name], real)
