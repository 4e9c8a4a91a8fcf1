"""Failures stay data to the last moment: every failure kind, made from the exception that
really raises it, renders in 简体中文 without an English sentence (values such as a path or the
engine's own line aside); the banner's hint is the error's fix or the kind's, never both; the
templates survive run.json, and a run.json written before them (English only) still reads."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

from PySide6.QtCore import QCoreApplication

from app.core.errors import DiskFullError, InputError, OutputError
from app.engine.errors import error_for_exit
from app.engine.locate import EngineNotFound
from app.engine.process import EngineHung
from app.pipeline.execute.decode_check import BadDecodeError
from app.pipeline.execute.failure_kinds import StageOrderError, failure_for
from app.pipeline.failures import Failure, FailureKind
from app.pipeline.job.identity import model_identity
from app.pipeline.run.lock import RunBusy
from app.ui.words import texts

# Three ASCII words in a row: an English sentence (a name such as "FLUX.2 klein" is two).
ENGLISH = re.compile(r"[A-Za-z][A-Za-z']*(?:\s+[A-Za-z][A-Za-z']*){2,}")


def _missing_model(tmp: Path) -> BaseException:
    try:
        model_identity(tmp / "no such model.gguf")
    except Exception as exc:  # the error under test
        return exc
    raise AssertionError("a missing model file was accepted")


def _damaged_latent(tmp: Path) -> BaseException:
    from app.engine.tensorfile import read_tensors

    empty = tmp / "init_latent.bin"
    empty.write_bytes(b"")
    try:
        read_tensors(empty)
    except Exception as exc:  # the error under test
        return exc
    raise AssertionError("an empty tensor file was read")


def _examples(tmp: Path) -> list[tuple[BaseException, str]]:
    """(exception, stage): at least one per failure kind, from the classes that raise it."""
    bad_decode = BadDecodeError(
        "The VAE decode produced a picture of one colour (value {value}) in {path}: the "
        "decode failed without saying so (often the device ran out of memory).",
        path=tmp / "decoded.png",
        fix="Stepwise retries it tiled, then on the CPU; if that fails too, turn on VAE "
        "tiling with smaller tiles or decode on the CPU.",
        values={"value": 0},
        retry=True,
    )
    return [
        (error_for_exit(4, None, ""), "diffuse"),
        (error_for_exit(4, "ggml_gallocr: failed to allocate the compute buffer", ""), "diffuse"),
        (error_for_exit(-6, None, "std::bad_alloc"), "vae-decode"),
        (bad_decode, "vae-decode"),
        (error_for_exit(3, None, ""), "llm-encode"),
        (error_for_exit(3, None, "failed to open /models/x.gguf"), "llm-encode"),
        (_missing_model(tmp), "prepare"),
        (error_for_exit(5, None, ""), "diffuse"),
        (InputError("A mask needs an image to inpaint."), "prepare"),
        (_damaged_latent(tmp), "diffuse"),
        (error_for_exit(8, None, ""), "vae-decode"),
        (OutputError("The disk is full while writing {path}.", path=tmp / "r.png"), "composite"),
        (DiskFullError("The disk is full while writing {path}.", path=tmp / "r.png"), "prepare"),
        (EngineNotFound(), "llm-encode"),
        (error_for_exit(1, None, ""), "diffuse"),
        (error_for_exit(-9, None, ""), "diffuse"),
        (error_for_exit(99, None, ""), "diffuse"),
        (error_for_exit(1, None, "VK_ERROR_DEVICE_LOST"), "diffuse"),
        (error_for_exit(1, None, "vkCreateInstance failed"), "diffuse"),
        (
            RunBusy(
                "The run {path} is being executed by another Stepwise process.",
                path=tmp,
                fix="Wait for it to finish or stop it first.",
            ),
            "prepare",
        ),
        (StageOrderError("diffuse", "vae-decode"), "vae-decode"),
        (
            EngineHung(
                "The engine sent nothing for {seconds} s in the {stage} stage and was ended.",
                fix="The steps it finished are kept: resume the run (or run the queue "
                "again) to continue from its last checkpoint; the engine log may say why.",
                values={"seconds": "1200", "stage": "diffuse"},
            ),
            "diffuse",
        ),
        (ValueError("an unexpected value"), "diffuse"),
    ]


def _english_left(text: str, failure: Failure) -> list[str]:
    for value in sorted((str(v) for v in failure.values.values()), key=len, reverse=True):
        if value:
            text = text.replace(value, " ")
    return ENGLISH.findall(text)


def test_every_failure_kind_renders_in_chinese(zh_cn, tmp_path: Path) -> None:
    examples = _examples(tmp_path)
    failures = [failure_for(exc, stage) for exc, stage in examples]
    assert {f.kind for f in failures} == set(FailureKind)  # every kind is tried
    for failure in failures:
        message, hint = texts.failure_text(failure), texts.failure_hint(failure)
        assert failure.message, failure  # the template crossed, not only the English
        assert "{" not in message and "{" not in hint, (message, hint)
        assert _english_left(message, failure) == [], message
        assert _english_left(hint, failure) == [], hint
        assert message != failure.detail


def test_the_oom_banner_does_not_repeat_its_hint(zh_cn) -> None:
    failure = failure_for(error_for_exit(4, None, ""), "diffuse")
    message, hint = texts.failure_text(failure), texts.failure_hint(failure)
    assert message == "内存不足：引擎内存不足。"
    assert hint.startswith("可以试试：在“设备”中为此阶段选择 CPU")  # where, in this window
    assert "VAE" not in message  # the fix is said once, as the hint


def test_a_file_error_hints_its_own_fix(zh_cn, tmp_path: Path) -> None:
    failure = failure_for(_missing_model(tmp_path), "prepare")
    message, hint = texts.failure_text(failure), texts.failure_hint(failure)
    assert message == f"无法使用模型文件：模型文件 {tmp_path / 'no such model.gguf'} 不存在。"
    assert hint == "请在“生成 → 配置 → 模型”下重新选择模型文件。"


def test_values_and_templates_survive_the_worker_and_run_json(tmp_path: Path) -> None:
    from app.pipeline import events as ev
    from app.pipeline.run.folder import Run

    failure = failure_for(_missing_model(tmp_path), "prepare")
    assert failure.message == "The model file {path} does not exist."
    assert failure.values["path"] == str(tmp_path / "no such model.gguf")
    assert "does not exist" in failure.detail and "Choose the model file" in failure.detail
    assert ev.RunFailed.of(failure).failure == failure  # what the worker's event carries
    run = SimpleNamespace(dir=tmp_path, _data={})  # Run's failure field alone
    Run.failure.fset(run, failure)
    stored = json.loads(json.dumps(run._data))  # what run.json holds
    assert stored["failure"]["message"] == failure.message
    run._data = stored
    assert Run.failure.fget(run) == failure


def test_an_old_run_json_failure_still_reads_and_shows(zh_cn, tmp_path: Path) -> None:
    from app.pipeline.run.folder import Run

    run = SimpleNamespace(
        dir=tmp_path,
        _data={
            "failure": {
                "kind": "out_of_memory",
                "stage": "diffuse",
                "detail": "The engine ran out of memory. Try a smaller image.",
                "log": None,
            }
        },
    )
    failure = Run.failure.fget(run)
    assert failure is not None and failure.message == "" and failure.values == {}
    assert (
        texts.failure_text(failure)
        == "内存不足：The engine ran out of memory. Try a smaller image."
    )
    assert texts.failure_hint(failure) == texts._tr(texts._FAILURES[FailureKind.OUT_OF_MEMORY][1])


def test_a_chosen_model_file_that_is_not_there_is_named(zh_cn, tmp_path: Path) -> None:
    """New-user walk 6: a model chosen but missing is not asked for again as if none were
    chosen; the file is named and said not to exist."""
    gone = tmp_path / "klein-9b.gguf"
    values = {"diffusion_model": str(gone), "llm_model": "", "vae_model": str(gone)}
    text = texts.missing_text(["diffusion_model", "llm_model", "vae_model"], values)
    assert f"扩散模型文件 {gone} 不存在" in text
    assert "请选择文本编码器" in text  # the one not chosen is asked for
    assert f"VAE文件 {gone} 不存在" in text
    assert "请选择扩散模型文件" not in text


def test_the_memory_plan_line_for_a_model_the_engine_cannot_load(zh_cn) -> None:
    """New-user walk 6: the engine's refusal in the Devices pane is a translated template
    around the engine's own line, pointing to where model paths are (not Settings)."""
    from app.jobs.run_state import user_text

    text = user_text(error_for_exit(3, "failed to load model: fix the path", ""))
    assert text.startswith("引擎报告：failed to load model: fix the path")
    assert "生成 → 配置 → 模型" in text and "设置" not in text
    english = ENGLISH.findall(text.replace("failed to load model: fix the path", ""))
    assert english == []


def _raised(check) -> BaseException:
    try:
        check()
    except Exception as exc:  # the error under test
        return exc
    raise AssertionError("the check passed")


def test_a_parameter_is_named_in_the_windows_words_not_by_its_flag(zh_cn, tmp_path) -> None:
    """A preflight error names its parameter as the CLI does ("VAE (--vae)"); the GUI
    says it in its own words, in Chinese too, and never shows the row's name or the flag."""
    from app.pipeline.job import params as P
    from app.pipeline.job import preflight
    from app.pipeline.job.spec import JobSpec, ModelFiles
    from app.ui.kit.messages import describe_error

    gone = tmp_path / "vae.safetensors"
    missing_vae = _raised(lambda: preflight.check_model_file(P.VAE_MODEL, str(gone)))
    assert missing_vae.user_message() == (
        f"The VAE (--vae) {gone} does not exist. Check the path."
    )  # the CLI's words are kept
    spec = JobSpec(models=ModelFiles("d", "l", "v"), prompt="word " * 600)
    long_prompt = _raised(lambda: preflight.check_engine_limits(spec))
    for exc, words in ((missing_vae, "VAE"), (long_prompt, "提示词")):
        failure = failure_for(exc, "prepare")
        shown = texts.failure_text(failure) + texts.failure_hint(failure) + describe_error(exc)
        assert words in shown, shown
        for cli in (failure.values["param"], failure.values["flag"]):
            assert cli not in shown, shown
    QCoreApplication.removeTranslator(zh_cn)
    try:
        english = texts.failure_message(failure_for(missing_vae, "prepare"))
        assert english == f"The VAE {gone} does not exist."
        too_long = texts.failure_message(failure_for(long_prompt, "prepare"))
        assert too_long.startswith("The prompt is too long: at least"), too_long
    finally:
        QCoreApplication.installTranslator(zh_cn)


def test_a_model_of_the_wrong_kind_is_said_in_the_windows_words(zh_cn, tiny_models) -> None:
    """A VAE chosen as the diffusion model: both kinds in Chinese, and the fix says where in
    this window to choose them, not which flags to pass."""
    from app.pipeline.job import params as P
    from app.pipeline.job import preflight

    error = _raised(lambda: preflight.check_model_file(P.DIFFUSION_MODEL, str(tiny_models.vae)))
    assert "--vae" in error.user_message()  # the CLI's fix names the flags
    failure = failure_for(error, "prepare")
    message, hint = texts.failure_text(failure), texts.failure_hint(failure)
    assert "扩散模型" in message and "VAE" in message, message
    assert "模型文件" in hint and "--" not in hint and "{" not in hint, hint
    assert _english_left(message, failure) == [] and ENGLISH.findall(hint) == [], (message, hint)


def test_every_parameter_has_the_windows_words(zh_cn) -> None:
    """Issue 41 item 9: an error about a row without the window's words showed the CLI's
    "cfg_scale (--cfg-scale)", a settings key and a flag, in English even in 简体中文."""
    from app.pipeline.job import params as P
    from app.pipeline.job.naming import named

    for p in P.PARAMS:
        shown = texts.window_values(named(p))["name"]
        chinese = isinstance(shown, str) and re.search(r"[\u4e00-\u9fff]", shown)
        assert chinese or str(shown).isupper(), (p.name, shown)  # "VAE" is VAE in both
        assert "_" not in shown and "--" not in shown, (p.name, shown)
    QCoreApplication.removeTranslator(zh_cn)
    try:
        for p in P.PARAMS:
            shown = str(texts.window_values(named(p))["name"])
            assert "_" not in shown and "--" not in shown and shown.strip(), (p.name, shown)
    finally:
        QCoreApplication.installTranslator(zh_cn)
