"""Tensor layouts of the FLUX.2 [klein] model files (DiT, Qwen3 LLM) for any size: names,
torch-order shapes and ggml types as the files have them, each tensor produced lazily.

app/engine/tiny_models.py writes the tiny test sets with them (seeded float weights, quantized
by gguf-py) and scripts/make_shape_models.py the real klein-4B / 9B shapes (``fast``: random
quant blocks with sane scales, app/engine/gguf_blocks.py). ``real_paths`` gives the types a
converted real file has: BF16 DiT in/out layers and norm scales, a Q4_K_M-like LLM (Q4_K
token embedding and weights, Q6_K attn_v / ffn_down in llama.cpp's "more bits" layers).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from app.engine.gguf_blocks import BLOCKS, Tensor, bf16_bytes, random_blocks
from app.engine.tiny_vae import Weights as _Weights

# Values fixed by the pinned sd.cpp for FLUX.2 klein (flux.hpp, llm.hpp).
DIT_LATENT_CHANNELS = 128
DIT_HEAD_DIM = 128
DIT_MLP_RATIO = 3
DIT_TIME_EMBED_DIM = 256
LLM_HEAD_DIM = 128
LLM_HEADS_28_LAYERS = 16  # sd.cpp's special case (Qwen3 with exactly 28 layers)
LLM_HEADS = 32  # every other layer count (Qwen3-4B / 8B)
LLM_KV_HEADS = 8


@dataclass(frozen=True)
class DitShape:
    hidden: int
    double_blocks: int
    single_blocks: int
    context: int  # = 3 x the LLM's hidden size
    real_paths: bool = False  # img_in / txt_in / time_in / final_layer and the scales in BF16


@dataclass(frozen=True)
class LlmShape:
    hidden: int
    layers: int
    intermediate: int
    vocab: int
    real_paths: bool = False  # Q4_K_M-like: Q4_K embedding and weights, Q6_K in some layers

    @property
    def heads(self) -> int:
        return LLM_HEADS_28_LAYERS if self.layers == 28 else LLM_HEADS


class _Maker:
    """Tensor producers for one file; `fast` makes every quantized tensor from random blocks
    (the real shapes) instead of quantizing seeded float weights (the tiny sets)."""

    def __init__(self, seed: int, part: str, fast: bool) -> None:
        self.w = _Weights(seed, part)
        self._seed, self._part, self._fast = seed, part, fast

    def _rng(self, key: str) -> np.random.Generator:
        digest = hashlib.sha256(f"{self._seed}/{self._part}/{key}#blocks".encode()).digest()
        return np.random.default_rng(int.from_bytes(digest[:8], "little"))

    def matrix(
        self,
        name: str,
        key: str,
        out_dim: int,
        in_dim: int,
        qtype: str,
        gain: float = 1.0,
        embedding: bool = False,
    ) -> Tensor:
        def data() -> np.ndarray:
            if qtype in ("q4_k", "q6_k") or (self._fast and qtype in BLOCKS):
                std = 1.0 if embedding else gain / np.sqrt(in_dim)
                return random_blocks(self._rng(key), qtype, out_dim, in_dim, std)
            if embedding:
                array = self.w.embedding(key, out_dim, in_dim)
            else:
                array = self.w.linear(key, out_dim, in_dim, gain=gain)
            return _encode(array, qtype)

        return Tensor(name, (out_dim, in_dim), qtype, data)

    def scale(self, name: str, key: str, size: int, qtype: str = "f32") -> Tensor:
        return Tensor(name, (size,), qtype, lambda: _encode(self.w.near_one(key, size), qtype))


def _encode(array: np.ndarray, qtype: str) -> np.ndarray:
    if qtype == "f32":
        return array
    if qtype == "bf16":
        return bf16_bytes(array)
    import gguf  # deferred: only generation needs it

    return gguf.quants.quantize(array, gguf.GGMLQuantizationType[qtype.upper()])


def dit_layout(shape: DitShape, seed: int, fast: bool = False) -> Iterator[Tensor]:
    """flux.hpp, FLUX.2: share_modulation, no biases, SiLU-gated MLP of ratio 3, patch 1."""
    m = _Maker(seed, "dit", fast)
    hidden = shape.hidden
    mlp = hidden * DIT_MLP_RATIO
    io = "bf16" if shape.real_paths else "q4_0"
    norm = "bf16" if shape.real_paths else "f32"

    yield m.matrix("img_in.weight", "img_in", hidden, DIT_LATENT_CHANNELS, io)
    yield m.matrix("txt_in.weight", "txt_in", hidden, shape.context, io)
    yield m.matrix("time_in.in_layer.weight", "time_in.in", hidden, DIT_TIME_EMBED_DIM, io)
    yield m.matrix("time_in.out_layer.weight", "time_in.out", hidden, hidden, io)
    # Modulation gains are small so the random shift/scale/gate stay near identity.
    for name, mult in (
        ("double_stream_modulation_img", 6),
        ("double_stream_modulation_txt", 6),
        ("single_stream_modulation", 3),
    ):
        yield m.matrix(f"{name}.lin.weight", name, hidden * mult, hidden, "q4_0", gain=0.2)
    for i in range(shape.double_blocks):
        for side in ("img", "txt"):
            p = f"double_blocks.{i}.{side}"
            yield m.matrix(f"{p}_attn.qkv.weight", f"{p}.qkv", 3 * hidden, hidden, "q4_0")
            yield m.scale(f"{p}_attn.norm.query_norm.scale", f"{p}.qn", DIT_HEAD_DIM, norm)
            yield m.scale(f"{p}_attn.norm.key_norm.scale", f"{p}.kn", DIT_HEAD_DIM, norm)
            yield m.matrix(f"{p}_attn.proj.weight", f"{p}.proj", hidden, hidden, "q4_0")
            yield m.matrix(f"{p}_mlp.0.weight", f"{p}.mlp0", 2 * mlp, hidden, "q4_0")
            yield m.matrix(f"{p}_mlp.2.weight", f"{p}.mlp2", hidden, mlp, "q4_0")
    for i in range(shape.single_blocks):
        p = f"single_blocks.{i}"
        yield m.matrix(f"{p}.linear1.weight", f"{p}.l1", 3 * hidden + 2 * mlp, hidden, "q4_0")
        yield m.matrix(f"{p}.linear2.weight", f"{p}.l2", hidden, hidden + mlp, "q4_0")
        yield m.scale(f"{p}.norm.query_norm.scale", f"{p}.qn", DIT_HEAD_DIM, norm)
        yield m.scale(f"{p}.norm.key_norm.scale", f"{p}.kn", DIT_HEAD_DIM, norm)
    ada = "final_layer.adaLN_modulation.1.weight"
    yield m.matrix(ada, "final.ada", 2 * hidden, hidden, io, gain=0.2)
    yield m.matrix("final_layer.linear.weight", "final.linear", DIT_LATENT_CHANNELS, hidden, io)


def _more_bits(i: int, n: int) -> bool:
    """llama.cpp's Q4_K_M rule: these layers keep attn_v and ffn_down in Q6_K."""
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def llm_layout(shape: LlmShape, seed: int, fast: bool = False) -> Iterator[Tensor]:
    """Qwen3 (llm.hpp) with llama.cpp names, which sd.cpp's name_conversion.cpp converts."""
    m = _Maker(seed, "llm", fast)
    hidden, inter = shape.hidden, shape.intermediate
    q_dim = shape.heads * LLM_HEAD_DIM
    kv_dim = LLM_KV_HEADS * LLM_HEAD_DIM
    main = "q4_k" if shape.real_paths else "q4_0"

    yield m.matrix("token_embd.weight", "embed", shape.vocab, hidden, main, embedding=True)
    for i in range(shape.layers):
        p = f"blk.{i}"
        more = "q6_k" if shape.real_paths and _more_bits(i, shape.layers) else main
        yield m.scale(f"{p}.attn_norm.weight", f"{p}.an", hidden)
        yield m.matrix(f"{p}.attn_q.weight", f"{p}.q", q_dim, hidden, main)
        yield m.matrix(f"{p}.attn_k.weight", f"{p}.k", kv_dim, hidden, main)
        yield m.matrix(f"{p}.attn_v.weight", f"{p}.v", kv_dim, hidden, more)
        yield m.scale(f"{p}.attn_q_norm.weight", f"{p}.qn", LLM_HEAD_DIM)
        yield m.scale(f"{p}.attn_k_norm.weight", f"{p}.kn", LLM_HEAD_DIM)
        # Residual branches are damped so many random layers do not blow the stream up.
        yield m.matrix(f"{p}.attn_output.weight", f"{p}.o", hidden, q_dim, main, gain=0.5)
        yield m.scale(f"{p}.ffn_norm.weight", f"{p}.fn", hidden)
        yield m.matrix(f"{p}.ffn_gate.weight", f"{p}.gate", inter, hidden, main)
        yield m.matrix(f"{p}.ffn_up.weight", f"{p}.up", inter, hidden, main)
        yield m.matrix(f"{p}.ffn_down.weight", f"{p}.down", hidden, inter, more, gain=0.5)
    yield m.scale("output_norm.weight", "output_norm", hidden)
