"""A model field names the kind a wrong file holds (issue 30 item 10): a VAE chosen as the
diffusion model reads "holds a VAE", not "small for a diffusion model"."""

from __future__ import annotations

from app.ui.generation.model_files import check_model_file


def test_a_vae_chosen_as_the_diffusion_model_is_named(tiny_models) -> None:
    check = check_model_file(str(tiny_models.vae), "diffusion")
    assert not check.ok
    assert "holds a VAE" in check.message and "small" not in check.message, check.message
    right = check_model_file(str(tiny_models.diffusion), "diffusion")
    assert "holds" not in right.message, right.message
