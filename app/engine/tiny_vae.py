"""The tiny models' random weights and their VAE (split from tiny_models.py, which writes
the files): deterministic per tensor name, so the set is the same on every machine."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import numpy as np

VAE_Z_CHANNELS = 32
VAE_CH_MULT = (1, 2, 4, 4)
VAE_RES_BLOCKS = 2


# ---------------------------------------------------------------------------------------------
# Random weights


class Weights:
    """Per-tensor seeded random weights, so adding a tensor never changes the others."""

    def __init__(self, seed: int, part: str) -> None:
        self._seed = seed
        self._part = part

    def _rng(self, name: str) -> np.random.Generator:
        digest = hashlib.sha256(f"{self._seed}/{self._part}/{name}".encode()).digest()
        return np.random.default_rng(int.from_bytes(digest[:8], "little"))

    def linear(self, name: str, out_dim: int, in_dim: int, gain: float = 1.0) -> np.ndarray:
        # 1/sqrt(fan_in) keeps every layer's output at about the input's scale, so 28 LLM
        # layers and the VAE's deep conv stacks stay finite with random weights.
        std = gain / np.sqrt(in_dim)
        return (self._rng(name).standard_normal((out_dim, in_dim)) * std).astype(np.float32)

    def conv(
        self, name: str, out_ch: int, in_ch: int, kernel: int, gain: float = 1.0
    ) -> np.ndarray:
        std = gain / np.sqrt(in_ch * kernel * kernel)
        shape = (out_ch, in_ch, kernel, kernel)
        return (self._rng(name).standard_normal(shape) * std).astype(np.float32)

    def near_one(self, name: str, size: int) -> np.ndarray:
        return (1.0 + 0.1 * self._rng(name).standard_normal(size)).astype(np.float32)

    def small(self, name: str, size: int) -> np.ndarray:
        return (0.02 * self._rng(name).standard_normal(size)).astype(np.float32)

    def embedding(self, name: str, rows: int, dim: int) -> np.ndarray:
        return self._rng(name).standard_normal((rows, dim), dtype=np.float32)


# ---------------------------------------------------------------------------------------------
# VAE (auto_encoder_kl.hpp, FLUX.2: z 32, quant convs 64->64 and 32->32)


def _resnet(w: Weights, p: str, in_ch: int, out_ch: int) -> Iterator[tuple[str, np.ndarray]]:
    yield f"{p}.norm1.weight", w.near_one(f"{p}.n1w", in_ch)
    yield f"{p}.norm1.bias", w.small(f"{p}.n1b", in_ch)
    yield f"{p}.conv1.weight", w.conv(f"{p}.c1w", out_ch, in_ch, 3)
    yield f"{p}.conv1.bias", w.small(f"{p}.c1b", out_ch)
    yield f"{p}.norm2.weight", w.near_one(f"{p}.n2w", out_ch)
    yield f"{p}.norm2.bias", w.small(f"{p}.n2b", out_ch)
    # The residual branch is damped so a stack of random blocks stays near unit scale.
    yield f"{p}.conv2.weight", w.conv(f"{p}.c2w", out_ch, out_ch, 3, gain=0.5)
    yield f"{p}.conv2.bias", w.small(f"{p}.c2b", out_ch)
    if in_ch != out_ch:
        yield f"{p}.nin_shortcut.weight", w.conv(f"{p}.nsw", out_ch, in_ch, 1)
        yield f"{p}.nin_shortcut.bias", w.small(f"{p}.nsb", out_ch)


def _conv(w: Weights, p: str, out_ch: int, in_ch: int, k: int) -> Iterator[tuple[str, np.ndarray]]:
    yield f"{p}.weight", w.conv(f"{p}.w", out_ch, in_ch, k)
    yield f"{p}.bias", w.small(f"{p}.b", out_ch)


def _norm(w: Weights, p: str, ch: int) -> Iterator[tuple[str, np.ndarray]]:
    yield f"{p}.weight", w.near_one(f"{p}.w", ch)
    yield f"{p}.bias", w.small(f"{p}.b", ch)


def _attn(w: Weights, p: str, ch: int) -> Iterator[tuple[str, np.ndarray]]:
    yield from _norm(w, f"{p}.norm", ch)
    for name in ("q", "k", "v", "proj_out"):
        yield from _conv(w, f"{p}.{name}", ch, ch, 1)


def vae_tensors(
    seed: int, encoder_channels: int, decoder_channels: int
) -> Iterator[tuple[str, np.ndarray]]:
    w = Weights(seed, "vae")
    z = VAE_Z_CHANNELS
    levels = len(VAE_CH_MULT)

    ch = encoder_channels
    yield from _conv(w, "encoder.conv_in", ch, 3, 3)
    block_in = ch
    for i, mult in enumerate(VAE_CH_MULT):
        block_out = ch * mult
        for j in range(VAE_RES_BLOCKS):
            yield from _resnet(w, f"encoder.down.{i}.block.{j}", block_in, block_out)
            block_in = block_out
        if i != levels - 1:
            yield from _conv(w, f"encoder.down.{i}.downsample.conv", block_in, block_in, 3)
    yield from _resnet(w, "encoder.mid.block_1", block_in, block_in)
    yield from _attn(w, "encoder.mid.attn_1", block_in)
    yield from _resnet(w, "encoder.mid.block_2", block_in, block_in)
    yield from _norm(w, "encoder.norm_out", block_in)
    yield from _conv(w, "encoder.conv_out", 2 * z, block_in, 3)
    yield from _conv(w, "quant_conv", 2 * z, 2 * z, 1)

    yield from _conv(w, "post_quant_conv", z, z, 1)
    ch = decoder_channels
    block_in = ch * VAE_CH_MULT[-1]
    yield from _conv(w, "decoder.conv_in", block_in, z, 3)
    yield from _resnet(w, "decoder.mid.block_1", block_in, block_in)
    yield from _attn(w, "decoder.mid.attn_1", block_in)
    yield from _resnet(w, "decoder.mid.block_2", block_in, block_in)
    for i in reversed(range(levels)):
        block_out = ch * VAE_CH_MULT[i]
        for j in range(VAE_RES_BLOCKS + 1):
            yield from _resnet(w, f"decoder.up.{i}.block.{j}", block_in, block_out)
            block_in = block_out
        if i != 0:
            yield from _conv(w, f"decoder.up.{i}.upsample.conv", block_in, block_in, 3)
    yield from _norm(w, "decoder.norm_out", block_in)
    yield from _conv(w, "decoder.conv_out", 3, block_in, 3)
