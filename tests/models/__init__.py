"""Tiny random-weight FLUX.2 [klein] model sets for the test suite and the app's selftest."""

from tests.models.generate import GENERATOR_VERSION, ModelSet, TinySpec, generate_models

__all__ = ["GENERATOR_VERSION", "ModelSet", "TinySpec", "generate_models"]
