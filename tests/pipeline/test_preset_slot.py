"""A preset's `[slot]` left in the prompt stops the job before it starts, for every caller (the
GUI's Run all and Add to queue as well as `run`): klein would paint the words "describe the
object"."""

from __future__ import annotations

import pytest

from app.core.errors import InputError
from app.pipeline.job import preflight
from app.pipeline.job.presets import preset
from app.pipeline.job.spec import JobSpec, ModelFiles


def _spec(prompt: str) -> JobSpec:
    return JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt=prompt)


@pytest.mark.parametrize("name", ["add", "background"])
def test_a_preset_slot_left_in_the_prompt_is_refused(name: str) -> None:
    template = preset(name).prompt
    with pytest.raises(InputError) as caught:
        preflight.check_job(_spec(template))
    slot = template[template.index("[") : template.index("]") + 1]
    assert caught.value.values["slot"] == slot
    assert "still holds" in str(caught.value)
    # Half filled in, the slot still there: refused too.
    with pytest.raises(InputError):
        preflight.check_job(_spec("a lamp and " + template))


def test_a_filled_slot_and_the_users_own_brackets_pass() -> None:
    filled = preset("add").prompt.replace("[describe the object]", "red bicycle")
    for prompt in (filled, "a cat [in a hat]"):
        preflight.check_prompt_slots(_spec(prompt))  # no error
