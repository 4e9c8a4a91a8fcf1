"""Stopping always works (issue 9): sd-stage reads its control commands in every stage, and end
of input on stdin (the front end died) is suspend. Cancel during a model load, a text encode or
a VAE decode ends the process within seconds without output; closing stdin while diffuse is
paused leaves a valid checkpoint that resumes to the same latent. The real engine, tiny models.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from app.core import platform
from app.engine.tensorfile import read_tensors, write_tensors
from tests.engine.fuzz import Corpus, make_corpus
from tests.engine.pause_hook import PAUSE_AT_STEP_ENV

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

EXIT_CEILING_S = 120.0  # a generous ceiling for the exit after a stop; never a measure of it


@pytest.fixture(scope="module")
def corpus(sd_stage: Path, tiny_models, tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return make_corpus(sd_stage, tiny_models, tmp_path_factory.mktemp("corpus"))


_STARTED: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def no_engine_outlives_its_test():
    """A test that fails while its engine is paused keeps the engine (the traceback holds its
    stdin open): it is killed here, so one failure does not become every later test's stray
    child (a fresh-clone run once had 8 failures from one leaked engine)."""
    yield
    while _STARTED:
        proc = _STARTED.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=EXIT_CEILING_S)


class Engine:
    """sd-stage behind pipes, as a front end drives it."""

    def __init__(self, argv: list[str], log: Path, env: dict[str, str] | None = None) -> None:
        self._log = open(log, "wb")  # (closed in wait)
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
            env=None if env is None else {**os.environ, **env},
            **platform.child_popen_kwargs(),
        )  # fmt: skip
        _STARTED.append(self.proc)
        self.events: list[dict] = []
        self._queue: queue.Queue[dict | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(json.loads(line))
        self._queue.put(None)

    def until(self, type_: str, timeout_s: float = 120) -> dict:
        deadline = time.monotonic() + timeout_s
        while True:
            event = self._queue.get(timeout=max(0.01, deadline - time.monotonic()))
            if event is None:
                raise AssertionError(f"the engine exited before a {type_} event: {self.events}")
            self.events.append(event)
            if event["type"] == type_:
                return event

    def send(self, cmd: str) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"cmd": cmd}).encode() + b"\n")
        self.proc.stdin.flush()
        return time.monotonic()

    def close_stdin(self) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return time.monotonic()

    def wait(self, timeout_s: float = 120) -> int:
        try:
            code = self.proc.wait(timeout_s)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._log.close()
        while (event := self._queue.get(timeout=10)) is not None:
            self.events.append(event)
        return code

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]


def _stop_latency(engine: Engine, sent_at: float) -> float:
    """Seconds from the command to the exit, printed for the reader (bench/ measures it): the
    tests assert what a prompt stop means by behaviour, no output and no later event."""
    engine.proc.wait(EXIT_CEILING_S)
    return time.monotonic() - sent_at


def _llm_argv(corpus: Corpus, tiny_models, out: Path) -> list[str]:
    # cfg 7: the prompt and the negative prompt, 512 tokens each: seconds on the tiny model.
    return [str(corpus.binary), "--stage", "llm-encode", "--llm", str(tiny_models.llm),
            "-p", "a red fox in the snow", "--cfg-scale", "7", "-t", "1",
            "--save-embeddings", str(out / "cond.bin"), "--events", "jsonl"]  # fmt: skip


def test_cancel_during_llm_encode_returns_at_once(corpus, tiny_models, tmp_path):
    engine = Engine(_llm_argv(corpus, tiny_models, tmp_path), tmp_path / "run.log")
    engine.until("load")
    latency = _stop_latency(engine, engine.send("cancel"))
    assert engine.wait() == 7
    assert "done" not in engine.types()
    assert not (tmp_path / "cond.bin").exists()
    print(f"cancel during llm-encode: {latency:.2f} s")


def test_end_of_input_during_llm_encode_is_suspend(corpus, tiny_models, tmp_path):
    engine = Engine(_llm_argv(corpus, tiny_models, tmp_path), tmp_path / "run.log")
    engine.until("load")
    latency = _stop_latency(engine, engine.close_stdin())
    assert engine.wait() == 6
    assert not (tmp_path / "cond.bin").exists()
    print(f"end of input during llm-encode: {latency:.2f} s")


def test_cancel_during_vae_decode_returns_at_once(corpus, tmp_path):
    # A valid 1024x1024 latent: its decode runs for a minute on the tiny VAE with one thread.
    rng = np.random.default_rng(1)
    latent = tmp_path / "big.bin"
    write_tensors(latent, {"latent": rng.standard_normal((1, 128, 64, 64), np.float32)})
    engine = Engine(corpus.decode_argv(latent, tmp_path), tmp_path / "run.log")
    engine.until("load")  # the decode starts right after it and lasts a minute
    latency = _stop_latency(engine, engine.send("cancel"))
    assert engine.wait() == 7
    assert not (tmp_path / "out.png").exists()
    print(f"cancel during vae-decode: {latency:.2f} s")


def test_cancel_during_model_load_returns_at_once(corpus, tmp_path):
    # The tiny model loads in milliseconds: under load the engine's stdin reader was not even
    # scheduled before the load ended and sampling began. The test hook makes the load last
    # until the stop ends the process, so the cancel is read during the load, as on a real model.
    engine = Engine(
        corpus.diffuse_argv(tmp_path), tmp_path / "run.log", env={"SD_STAGE_TEST_SLOW_LOAD": "1"}
    )
    engine.until("hello")
    latency = _stop_latency(engine, engine.send("cancel"))
    assert engine.wait() == 7
    assert "progress" not in engine.types() and "done" not in engine.types()
    assert not (tmp_path / "final.bin").exists()
    print(f"cancel during the model load: {latency:.2f} s")


def test_closing_stdin_while_paused_suspends_with_a_valid_checkpoint(corpus, tmp_path):
    whole = tmp_path / "whole"
    whole.mkdir()
    reference = Engine(corpus.diffuse_argv(whole), whole / "run.log")
    assert reference.wait() == 0

    out = tmp_path / "paused"
    out.mkdir()
    # The engine pauses by itself after step 0's checkpoint (the test hook): a pause sent after
    # a `progress` event raced the tiny model's last step under load, and even a pause in the
    # pipe from the start was read after step 1 on a busy machine (the reader thread ran late).
    engine = Engine(corpus.diffuse_argv(out), out / "run.log", env={PAUSE_AT_STEP_ENV: "0"})
    paused = engine.until("paused")
    assert paused["step"] == 0
    latency = _stop_latency(engine, engine.close_stdin())  # the front end dies
    assert engine.wait() == 6
    stopped = [e for e in engine.events if e["type"] == "stopped"]
    assert stopped == [{"v": 1, "type": "stopped", "reason": "suspended", "step": paused["step"]}]
    assert "done" not in engine.types()
    print(f"suspend while paused at step {paused['step']}: {latency:.2f} s")
    meta = json.loads((out / "checkpoints" / "metadata.json").read_text())
    assert meta["last_completed_step"] == paused["step"]

    resumed = Engine(corpus.diffuse_argv(out, resume_step=paused["step"]), out / "resumed.log")
    assert resumed.wait() == 0
    a = read_tensors(out / "final.bin")["latent"]
    b = read_tensors(whole / "final.bin")["latent"]
    assert a.tobytes() == b.tobytes()


def test_stdin_that_is_not_a_pipe_is_no_front_end(corpus, tmp_path):
    """/dev/null (a script, a background job) ends at once: that must not stop the stage."""
    result = subprocess.run(
        corpus.decode_argv(corpus.files["latent"], tmp_path),
        stdin=subprocess.DEVNULL, capture_output=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert (tmp_path / "out.png").is_file()
