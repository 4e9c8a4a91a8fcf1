"""Mutated tensor files fed to the real sd-stage: the fuzz target of tests/engine/test_fuzz.py
and bench/fuzz_engine.py.

A corpus of good files is made once with the tiny models (64x64 img2img with a reference:
init latent, ref latents, conditioning, the final latent, checkpoints). Each case mutates one
good file (a header field, a dimension, the element type, a name, the tensor list, the values,
the bytes) and runs the stage that reads it:

    latent       vae-decode --load-latent
    init_latent  diffuse --load-latent
    ref_latents  diffuse --load-ref-latents
    embeddings   diffuse --load-embeddings
    checkpoint   diffuse --resume-step 1 (metadata.json names the mutated file's sha256)

The engine may accept the file (exit 0) or refuse it (exit 5, bad input; 4 when an absurd but
consistent file asks for more memory than there is); anything else (a signal, exit 1, a hang)
is a defect.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import struct
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from app.core import platform

KINDS = ("latent", "init_latent", "ref_latents", "embeddings", "checkpoint")
ALLOWED_EXITS = frozenset({0, 4, 5})
CASE_TIMEOUT_S = 120.0
SIZE = 64
STEPS = 2

_HEADER = struct.Struct("<iii")


@dataclass
class Tensor:
    """One tensor as written: header fields may lie about the data."""

    name: bytes
    ggml_type: int
    ne: list[int]
    data: bytes
    name_len: int | None = None  # None: len(name)
    n_dims: int | None = None  # None: len(ne)

    def encode(self) -> bytes:
        n_dims = len(self.ne) if self.n_dims is None else self.n_dims
        name_len = len(self.name) if self.name_len is None else self.name_len
        head = _HEADER.pack(n_dims, name_len, self.ggml_type)
        dims = b"".join(struct.pack("<i", _i32(d)) for d in self.ne)
        return head + dims + self.name + self.data


def _i32(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


def parse(data: bytes) -> list[Tensor]:
    """The tensors of a good file (the corpus is written by the engine, so no checks)."""
    tensors, at = [], 0
    while at < len(data):
        n_dims, name_len, ggml_type = _HEADER.unpack_from(data, at)
        at += 12
        ne = list(struct.unpack_from(f"<{n_dims}i", data, at))
        at += 4 * n_dims
        name = data[at : at + name_len]
        at += name_len
        size = 4
        for d in ne:
            size *= d
        tensors.append(Tensor(name, ggml_type, ne, data[at : at + size]))
        at += size
    return tensors


def encode(tensors: list[Tensor]) -> bytes:
    return b"".join(t.encode() for t in tensors)


# ---- mutations ------------------------------------------------------------------------------

_DIMS = [0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 95, 96, 97, 127, 129, 255, 256,
         511, 512, 513, 1023, 1024, 1025, 4096, 8193, 65535, 2**31 - 1, -1, -2**31]  # fmt: skip
_MAX_FLOATS = 1 << 16  # a regenerated tensor stays small (256 KiB): each case runs in seconds


def _fill(rng: random.Random, n: int) -> bytes:
    block = struct.pack("<256f", *(rng.gauss(0.0, 1.0) for _ in range(256)))
    return (block * (n // 256 + 1))[: 4 * n]


def _numel(ne: list[int]) -> int:
    n = 1
    for d in ne:
        n *= max(d, 0)
    return n


def _reshaped(t: Tensor, rng: random.Random, ne: list[int], consistent: bool) -> Tensor:
    """t with dims `ne`; consistent: data regenerated to match (a well-formed file)."""
    n = _numel(ne)
    if consistent and n <= _MAX_FLOATS:
        data = (
            t.data[: 4 * n] if 4 * n <= len(t.data) else t.data + _fill(rng, n - len(t.data) // 4)
        )
        return Tensor(t.name, t.ggml_type, ne, data)
    return Tensor(t.name, t.ggml_type, ne, t.data)


def _m_dim(ts: list[Tensor], rng: random.Random) -> str:
    i = rng.randrange(len(ts))
    t = ts[i]
    ne = list(t.ne)
    axis = rng.randrange(len(ne))
    ne[axis] = rng.choice(_DIMS) if rng.random() < 0.8 else rng.randint(-5, 300)
    consistent = rng.random() < 0.7
    ts[i] = _reshaped(t, rng, ne, consistent)
    return f"dim{axis}={ne[axis]}{'' if consistent else '-lie'}"


def _m_shape(ts: list[Tensor], rng: random.Random) -> str:
    """A well-formed tensor of another shape: dims permuted, added, removed, or random."""
    i = rng.randrange(len(ts))
    t = ts[i]
    ne = list(t.ne)
    how = rng.choice(["permute", "add", "remove", "random", "batch"])
    if how == "permute":
        rng.shuffle(ne)
    elif how == "add" and len(ne) < 4:
        ne.insert(rng.randrange(len(ne) + 1), rng.choice([1, 1, 2, 3]))
    elif how == "remove" and len(ne) > 1:
        ne.pop(rng.randrange(len(ne)))
    elif how == "batch":
        ne = ne + [1] * (4 - len(ne))
        ne[-1] = rng.choice([2, 3])
    else:
        ne = [
            rng.choice([1, 2, 3, 4, 8, 16, 96, 127, 128, 129, 512])
            for _ in range(rng.randint(1, 4))
        ]
    ts[i] = _reshaped(t, rng, ne, True)
    return f"shape-{how}"


def _m_ndims(ts: list[Tensor], rng: random.Random) -> str:
    t = ts[rng.randrange(len(ts))]
    t.n_dims = rng.choice([0, -1, 1, 2, 3, 4, 5, 8, 1000, 2**31 - 1])
    return f"n_dims={t.n_dims}"


def _m_type(ts: list[Tensor], rng: random.Random) -> str:
    t = ts[rng.randrange(len(ts))]
    t.ggml_type = rng.choice([1, 2, 8, 26, 30, 39, -1, 2**31 - 1])
    return f"type={t.ggml_type}"


def _m_name(ts: list[Tensor], rng: random.Random) -> str:
    t = ts[rng.randrange(len(ts))]
    how = rng.choice(["known", "garbage", "len", "empty"])
    if how == "known":
        t.name = rng.choice(
            [
                b"latent",
                b"x_t",
                b"ref_0",
                b"ref_1",
                b"ref_17",
                b"c_crossattn",
                b"uncond_c_crossattn",
                b"c_vector",
                b"extra_c_crossattn_0",
            ]
        )
    elif how == "garbage":
        t.name = bytes(rng.randrange(256) for _ in range(rng.randint(1, 80)))
    elif how == "empty":
        t.name = b""
    else:
        t.name_len = rng.choice([-1, len(t.name) + 1, len(t.name) - 1, 4097, 2**31 - 1])
    return f"name-{how}"


def _m_list(ts: list[Tensor], rng: random.Random) -> str:
    how = rng.choice(["drop", "dup", "extra", "swap"])
    if how == "drop" or (how == "swap" and len(ts) < 2):
        ts.pop(rng.randrange(len(ts)))
    elif how == "dup":
        t = ts[rng.randrange(len(ts))]
        ts.append(Tensor(t.name, t.ggml_type, list(t.ne), t.data))
    elif how == "extra":
        ne = [rng.choice([1, 2, 4, 96, 128]) for _ in range(rng.randint(1, 4))]
        name = rng.choice([b"c_vector", b"extra_c_crossattn_0", b"ref_1", b"noise", b"latent"])
        ts.append(Tensor(name, 0, ne, _fill(rng, _numel(ne))))
    else:
        i, j = rng.sample(range(len(ts)), 2)
        ts[i], ts[j] = ts[j], ts[i]
    return f"list-{how}"


def _m_values(ts: list[Tensor], rng: random.Random) -> str:
    t = ts[rng.randrange(len(ts))]
    data = bytearray(t.data)
    n = len(data) // 4
    how = rng.choice(["nan", "inf", "huge", "zero"])
    if n == 0:
        return "values-none"
    if how == "zero":
        data[:] = bytes(len(data))
    else:
        value = {"nan": float("nan"), "inf": float("-inf"), "huge": 3.0e38}[how]
        for _ in range(rng.randint(1, 8)):
            struct.pack_into("<f", data, 4 * rng.randrange(n), value)
    t.data = bytes(data)
    return f"values-{how}"


_STRUCTURED: list[tuple[float, Callable[[list[Tensor], random.Random], str]]] = [
    (0.22, _m_dim),
    (0.22, _m_shape),
    (0.08, _m_ndims),
    (0.08, _m_type),
    (0.10, _m_name),
    (0.12, _m_list),
    (0.06, _m_values),
]


def mutate(good: bytes, rng: random.Random) -> tuple[str, bytes]:
    """One mutation of a good tensor file: (what was done, the bytes)."""
    r = rng.random()
    for weight, op in _STRUCTURED:
        if r < weight:
            tensors = parse(good)
            what = op(tensors, rng)
            return what, encode(tensors)
        r -= weight
    data = bytearray(good)
    how = rng.choice(["truncate", "append", "flip-header", "flip", "empty", "garbage"])
    if how == "truncate":
        del data[rng.randrange(len(data)) :]
    elif how == "append":
        data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    elif how == "flip-header":
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(min(len(data), 64))] ^= 1 << rng.randrange(8)
    elif how == "flip":
        for _ in range(rng.randint(1, 16)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif how == "empty":
        data = bytearray()
    else:
        data = bytearray(rng.randrange(256) for _ in range(rng.randint(1, 4096)))
    return how, bytes(data)


# ---- the corpus and one case ----------------------------------------------------------------


@dataclass
class Corpus:
    binary: Path
    folder: Path
    diffusion: Path
    vae: Path
    files: dict[str, Path]  # kind -> good file
    checkpoints: Path

    def diffuse_argv(self, out: Path, **inputs: Path | int) -> list[str]:
        argv = [
            str(self.binary),
            "--stage",
            "diffuse",
            "--diffusion-model",
            str(self.diffusion),
            "--load-embeddings",
            str(inputs.get("embeddings", self.files["embeddings"])),
            "--load-latent",
            str(inputs.get("init_latent", self.files["init_latent"])),
            "--load-ref-latents",
            str(inputs.get("ref_latents", self.files["ref_latents"])),
            "--strength",
            "0.75",
            "--steps",
            str(STEPS),
            "--seed",
            "42",
            "--sampling-method",
            "euler_a",
            "--cfg-scale",
            "1",
            "-t",
            "1",
            "--save-latent",
            str(out / "final.bin"),
            "--checkpoint-dir",
            str(inputs.get("checkpoints", out / "checkpoints")),
            "--events",
            "jsonl",
        ]
        if "resume_step" in inputs:
            argv += ["--resume-step", str(inputs["resume_step"])]
        return argv

    def decode_argv(self, latent: Path, out: Path) -> list[str]:
        return [
            str(self.binary),
            "--stage",
            "vae-decode",
            "--vae",
            str(self.vae),
            "--load-latent",
            str(latent),
            "-o",
            str(out / "out.png"),
            "-t",
            "1",
            "--events",
            "jsonl",
        ]


def _run(argv: list[str], log: Path, timeout_s: float) -> tuple[int | str, float]:
    """Exit code (negative: signal) or "hang"; stdin is /dev/null (not a front end)."""
    started = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            **platform.child_popen_kwargs(),
        )
        try:
            code: int | str = proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            platform.kill_process(proc.pid)
            proc.wait()
            code = "hang"
    return code, time.monotonic() - started


def make_corpus(binary: Path, models, folder: Path) -> Corpus:
    """Good files of every kind from one 64x64 img2img job with a reference image."""
    from tests.engine.real_engine import make_images

    folder.mkdir(parents=True, exist_ok=True)
    images = make_images(folder / "images", SIZE, SIZE)
    files = {
        "init_latent": folder / "init.bin",
        "ref_latents": folder / "refs.bin",
        "embeddings": folder / "cond.bin",
        "latent": folder / "final.bin",
    }
    steps = [
        [str(binary), "--stage", "vae-encode", "--vae", str(models.vae), "-i", str(images.init),
         "-r", str(images.ref), "-W", str(SIZE), "-H", str(SIZE), "-t", "1",
         "--save-latent", str(files["init_latent"]),
         "--save-ref-latents", str(files["ref_latents"])],
        [str(binary), "--stage", "llm-encode", "--llm", str(models.llm), "-p", "a fox",
         "--cfg-scale", "1", "-t", "2", "--save-embeddings", str(files["embeddings"])],
    ]  # fmt: skip
    for argv in steps:
        code, _ = _run(argv, folder / "corpus.log", 600)
        assert code == 0, f"{argv[2]} failed ({code}); see {folder / 'corpus.log'}"
    corpus = Corpus(binary, folder, models.diffusion, models.vae, files, folder / "checkpoints")
    argv = corpus.diffuse_argv(folder, checkpoints=corpus.checkpoints)
    code, _ = _run(argv, folder / "corpus.log", 600)
    assert code == 0, f"diffuse failed ({code}); see {folder / 'corpus.log'}"
    files["checkpoint"] = corpus.checkpoints / "step_001.bin"
    return corpus


@dataclass(frozen=True)
class Outcome:
    kind: str
    mutation: str
    code: int | str  # exit code, negative = signal, or "hang"
    seconds: float
    case: Path

    @property
    def ok(self) -> bool:
        return self.code in ALLOWED_EXITS


def run_case(corpus: Corpus, kind: str, data: bytes, mutation: str, case: Path,
             timeout_s: float = CASE_TIMEOUT_S) -> Outcome:  # fmt: skip
    case.mkdir(parents=True)
    if kind == "checkpoint":
        checkpoints = case / "checkpoints"
        shutil.copytree(corpus.checkpoints, checkpoints)
        (checkpoints / "step_001.bin").write_bytes(data)
        meta = json.loads((checkpoints / "metadata.json").read_text())
        meta["checkpoints"]["1"]["sha256"] = hashlib.sha256(data).hexdigest()
        (checkpoints / "metadata.json").write_text(json.dumps(meta))
        argv = corpus.diffuse_argv(case, checkpoints=checkpoints, resume_step=1)
    else:
        path = case / f"{kind}.bin"
        path.write_bytes(data)
        if kind == "latent":
            argv = corpus.decode_argv(path, case)
        else:
            argv = corpus.diffuse_argv(case, **{kind: path})
    code, seconds = _run(argv, case / "run.log", timeout_s)
    return Outcome(kind, mutation, code, seconds, case)


def campaign(corpus: Corpus, kinds: tuple[str, ...], count: int, work: Path, seed: int = 0,
             jobs: int = 2, keep: bool = False) -> list[Outcome]:  # fmt: skip
    """`count` mutated files of each kind; keeps the folders of failed cases (all with keep)."""
    cases = []
    for kind in kinds:
        rng = random.Random(f"{seed}-{kind}")
        good = corpus.files[kind].read_bytes()
        for i in range(count):
            mutation, data = mutate(good, rng)
            cases.append((kind, data, mutation, work / kind / f"{i:04d}"))

    def one(case: tuple[str, bytes, str, Path]) -> Outcome:
        outcome = run_case(corpus, *case)
        if outcome.ok and not keep:
            shutil.rmtree(outcome.case, ignore_errors=True)
        return outcome

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, cases))


def table(outcomes: list[Outcome]) -> str:
    """Outcomes per kind: counts by exit code, signals, hangs, time."""
    rows = ["kind          files  exit0  exit4  exit5  other  signal  hang  max_s  total_s"]
    for kind in sorted({o.kind for o in outcomes}, key=KINDS.index):
        mine = [o for o in outcomes if o.kind == kind]
        codes = Counter(o.code for o in mine)
        signals = sum(1 for o in mine if isinstance(o.code, int) and o.code < 0)
        other = sum(
            1
            for o in mine
            if isinstance(o.code, int) and o.code > 0 and o.code not in ALLOWED_EXITS
        )
        rows.append(
            f"{kind:<12} {len(mine):>6} {codes[0]:>6} {codes[4]:>6} {codes[5]:>6} {other:>6}"
            f" {signals:>7} {codes['hang']:>5} {max(o.seconds for o in mine):>6.1f}"
            f" {sum(o.seconds for o in mine):>8.1f}"
        )
    return "\n".join(rows)
