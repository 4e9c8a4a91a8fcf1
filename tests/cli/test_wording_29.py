"""Issue 29, defects 12 and 13: messages name the flags as the CLI spells them, an example is
good English, a negative value after a space gets a hint, and a shared PNG keeps no folder of
any system's paths."""

from __future__ import annotations

import pytest

from app.cli.parser import build_parser
from app.cli.run_flags import values_from_args
from app.core.errors import InputError, StepwiseError
from app.imaging.prepare_record import PrepareOptions
from app.pipeline.job.frame_checks import check_frame_values
from app.pipeline.job.spec import JobSpec, ModelFiles

MODELS = ["--diffusion-model", "d", "--llm", "l", "--vae", "v"]


def test_the_expansion_without_a_picture_names_the_image_flag() -> None:
    spec = JobSpec(ModelFiles("d", "l", "v"), prompt="x", prepare=PrepareOptions(expand="8,0,0,0"))
    with pytest.raises(InputError) as caught:
        check_frame_values(spec)
    text = caught.value.user_message()
    assert "-i/--init-img" in text and "(--image)" not in text


@pytest.mark.parametrize("name", ["add", "background"])
def test_a_presets_example_prompt_is_good_english(name: str) -> None:
    args = build_parser().parse_args(["run", *MODELS, "--preset", name])
    with pytest.raises(StepwiseError) as caught:
        values_from_args(args, None)
    example = str(caught.value.values["example"])
    assert "a a " not in example and "[" not in example


def test_a_negative_value_after_a_space_gets_a_hint(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", *MODELS, "--context", "-5,0,64,64"])
    err = capsys.readouterr().err
    assert "expected one argument" in err and "--context=-5" in err


def test_a_shared_png_keeps_file_names_of_windows_and_posix_paths() -> None:
    """Defect 13: C:\\Users\\alice\\… was kept whole when saved on Linux or macOS."""
    from app.ui.workspace.png_settings import shareable

    spec = JobSpec(
        ModelFiles(r"C:\Users\alice\models\klein.gguf", "/home/bob/llm.gguf", r"\\srv\m\vae.st"),
        prompt="x",
        image=r"D:\photos\holiday.png",
        refs=(r"C:\Users\alice\ref.png", "/Users/carol/ref2.png"),
    )
    shared = shareable(spec)
    assert (shared.models.diffusion, shared.models.llm) == ("klein.gguf", "llm.gguf")
    assert shared.models.vae == "vae.st" and shared.image == "holiday.png"
    assert shared.refs == ("ref.png", "ref2.png")


def test_an_engine_crash_names_the_run_folder_to_resume(tmp_path, capsys) -> None:
    """Defect 12: in `queue run` too, the crash says which run folder `resume` continues (the
    queue shows the job done once its run folder has a result)."""
    import io

    from app.cli.execute import print_event
    from app.pipeline import events as ev
    from app.pipeline.failures import FailureKind

    out = io.StringIO()
    crash = ev.RunFailed("diffuse", FailureKind.ENGINE_CRASHED, "exit code -11", None)
    print_event(crash, tmp_path / "runs" / "job-7", out)
    text = out.getvalue() + capsys.readouterr().err
    assert f"python -m app resume {tmp_path / 'runs' / 'job-7'}" in text, text
    assert "`resume`" not in text
