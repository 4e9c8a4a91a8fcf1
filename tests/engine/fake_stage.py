"""A scripted stand-in for sd-stage that injects protocol faults (the suite's only fake engine).

Usage: python fake_stage.py SCENARIO. Each scenario prints a fixed sequence of stdout lines and
exits in a fixed way, so the StageProcess tests can check how the client copes with garbage,
oversized lines, unknown events, hangs that ignore cancel or SIGTERM, and crashes.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time


def emit(kind: str, **fields: object) -> None:
    print(json.dumps({"v": 1, "type": kind, **fields}), flush=True)


def hello() -> None:
    emit(
        "hello",
        version="fake",
        pin="none",
        stage="diffuse",
        devices=[{"name": "CPU", "description": "fake cpu"}],
        device="CPU",
    )


def steps(n: int, start: int = 0) -> None:
    for step in range(start + 1, n + 1):
        emit("progress", step=step, steps=n, seconds=0.01, seconds_per_step=0.01)
        emit("checkpoint", step=step, path=f"checkpoints/step_{step:03d}.bin")


def done() -> None:
    emit("done", seconds=0.1, outputs={"latent": "final.bin"})


def commands():
    """stdin command lines, parsed."""
    for line in sys.stdin:
        try:
            yield json.loads(line)["cmd"]
        except (ValueError, KeyError, TypeError):
            continue


def scenario_ok() -> int:
    hello()
    emit("load", model="diffusion", path="m.gguf", device="CPU", seconds=0.5)
    steps(3)
    done()
    return 0


def scenario_garbage() -> int:
    hello()
    print("this is not json", flush=True)
    print("[1, 2, 3]", flush=True)
    print(
        json.dumps(
            {
                "v": 1,
                "type": "progress",
                "step": "one",
                "steps": 3,
                "seconds": 0,
                "seconds_per_step": 0,
            }
        ),
        flush=True,
    )
    sys.stdout.write("x" * (200 * 1024) + "\n")  # oversized
    sys.stdout.flush()
    emit("sparkles", step=1)  # unknown type: ignored
    print(json.dumps({"v": 2, "type": "progress"}), flush=True)
    steps(2)
    done()
    return 0


def scenario_flood() -> int:
    hello()
    for i in range(500):
        print(f"debug output {i}", flush=True)
    time.sleep(60)
    return 0


def scenario_hang() -> int:
    # Ignores cancel and SIGTERM: only SIGKILL ends it.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    hello()
    emit("progress", step=1, steps=5, seconds=0.01, seconds_per_step=0.01)
    for _ in commands():
        pass
    time.sleep(600)
    return 0


def scenario_ignore_cancel() -> int:
    # Ignores cancel; dies on SIGTERM (default action).
    hello()
    for _ in commands():
        pass
    time.sleep(600)
    return 0


def scenario_controls() -> int:
    """Obeys pause/resume/suspend/cancel between 'steps' like the real engine."""
    hello()
    state = {"step": 0, "paused": False, "stop": None}
    lock = threading.Condition()

    def listen() -> None:
        for cmd in commands():
            with lock:
                if cmd == "pause":
                    state["paused"] = True
                elif cmd == "resume":
                    state["paused"] = False
                elif cmd in ("suspend", "cancel"):
                    state["stop"] = cmd
                lock.notify_all()

    threading.Thread(target=listen, daemon=True).start()
    total = 1000
    while state["step"] < total:
        time.sleep(0.02)
        with lock:
            state["step"] += 1
            emit("progress", step=state["step"], steps=total, seconds=0.02, seconds_per_step=0.02)
            if state["stop"]:
                break
            if state["paused"]:
                emit("paused", step=state["step"])
                while state["paused"] and not state["stop"]:
                    lock.wait(1.0)
                if not state["stop"]:
                    emit("resumed", step=state["step"])
            if state["stop"]:
                break
    stop = state["stop"]
    if stop == "suspend":
        emit("checkpoint", step=state["step"], path=f"step_{state['step']:03d}.bin")
        emit("stopped", reason="suspended", step=state["step"])
        return 6
    if stop == "cancel":
        emit("stopped", reason="cancelled", step=state["step"])
        return 7
    done()
    return 0


def scenario_crash() -> int:
    hello()
    steps(1)
    sys.stderr.write("something went badly wrong\n")
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGSEGV)
    return 1


def scenario_oom() -> int:
    hello()
    sys.stderr.write(
        "ggml_vulkan: Device memory allocation of size 123 failed.\n"
        "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory\n"
    )
    sys.stderr.flush()
    os.abort()
    return 1


def scenario_model_error() -> int:
    hello()
    emit(
        "error",
        code=3,
        message="--diffusion-model /x/y.gguf: not a diffusion model; choose the DiT file",
    )
    return 3


def scenario_exit_status() -> int:
    hello()
    return 42


def scenario_stderr_flood() -> int:
    hello()
    block = ("ggml log line " * 8 + "\n").encode()
    for _ in range(40_000):  # ~4.5 MB: far more than a pipe buffer
        sys.stderr.buffer.write(block)
    sys.stderr.buffer.write(b"LAST LINE\n")
    sys.stderr.flush()
    done()
    return 0


def scenario_silent() -> int:
    time.sleep(600)
    return 0


def scenario_no_done() -> int:
    hello()
    return 0


def main() -> int:
    name = sys.argv[1]
    return globals()[f"scenario_{name}"]()


if __name__ == "__main__":
    sys.exit(main())
