"""Decoded step previews at no GPU cost: the VAE on the CPU, in its own low-priority process.

During diffuse the engine writes each step's x0 prediction as `x0_NNN.bin` in the checkpoint
folder (native/PROTOCOL.md, "x0 latents"). A PreviewDecoder decodes the newest one it was
offered with `sd-stage --stage vae-decode` on the CPU (`-t 1`, `--backend vae=cpu`), one child
at a time, below normal priority, so that sampling slows by as little as it must. Offers that
arrive while a decode runs replace each other (a one-slot mailbox): when it falls behind it
skips to the newest step, and it never decodes a step older than one it already delivered.

Files: the offered latent is first copied to `out_dir/.x0-decoding.bin` (the engine keeps only
its newest few x0 files and may remove the offered one at any time; the copy also keeps the
engine's removal from ever waiting on us), the child writes `out_dir/decoded_NNN.png`
atomically. stop() ends the child (cancel, then terminate, then kill: app/engine/process.py),
joins the worker and removes the copy and any half-written PNG, so a stop at any moment (run
end, cancel, suspend) leaves no process and no partial file.

No Qt: app/jobs/preview_decoding.py wraps it for the UI.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from app.core import platform
from app.core.errors import StepwiseError
from app.engine.argv import CommonArgs, Placement, VaeDecodeArgs, build_argv
from app.engine.errors import EngineStopped
from app.engine.process import StageProcess, engine_environment
from app.pipeline.api import DecodedPreview

if TYPE_CHECKING:
    from app.pipeline.job.spec import DeviceChoice, JobSpec

log = logging.getLogger(__name__)

DECODER_THREADS = 1  # with the DiT on the CPU (bench/preview_decoder.py); see decoder_threads()
DECODE_TIMEOUT_S = 600.0  # a 1024² decode on one slow core takes minutes; a hung child is killed
STOP_GRACE_S = 1.0  # vae-decode obeys cancel at once (PROTOCOL.md); then terminate, then kill
JOIN_TIMEOUT_S = 15.0
WATCH_POLL_S = 0.25  # watch(): how often an idle decoder looks for a newer x0 file
MAX_FAILURES = 3  # consecutive failed decodes (a bad VAE file) end the decoder
STAGED_LATENT = ".x0-decoding.bin"
LOG_NAME = "preview-decoder.log"
X0_FILE = re.compile(r"x0_(\d{3,6})\.bin")


def x0_step(path: Path | str) -> int | None:
    """The step of an engine x0 file name (`x0_007.bin` → 7), or None."""
    match = X0_FILE.fullmatch(Path(path).name)
    return int(match.group(1)) if match else None


def decoder_wanted(devices: DeviceChoice) -> bool:
    """Whether a run with these devices gets a background decoder (the `decoded_previews`
    row): "auto" = when the diffusion model is not on the CPU, where the decoder would take
    cores from it (bench/preview_decoder.py measures how much)."""
    choice = devices.decoded_previews
    return choice == "on" or (choice == "auto" and devices.diffusion.lower() != "cpu")


def decoder_threads(devices: DeviceChoice, cpu_count: int | None = None) -> int:
    """The decoder's CPU threads: 1 when the diffusion model computes on the CPU (measured:
    more threads only take more from it), else half the cores (the DiT's process needs only a
    core to feed the GPU, and the decoder runs below normal priority)."""
    if devices.diffusion.lower() == "cpu":
        return DECODER_THREADS
    return max(DECODER_THREADS, (cpu_count or os.cpu_count() or 2) // 2)


def decoder_for(
    engine: Callable[[], Path],
    spec: JobSpec,
    out_dir: Path,
    on_decoded: Callable[[DecodedPreview], None],
) -> PreviewDecoder | None:
    """The background decoder a run of `spec` gets (PipelineAPI.preview_decoder), not started;
    None when its devices want none (the engine is located only when one is wanted)."""
    d = spec.devices
    if not decoder_wanted(d):
        return None
    return PreviewDecoder(
        engine(),
        Path(spec.models.vae),
        out_dir,
        on_decoded,
        threads=decoder_threads(d),
        vae_tiling=d.vae_tiling,
    )


def decoded_png_name(step: int) -> str:
    return f"decoded_{step:03d}.png"


class PreviewDecoder:
    """A background decoder for one run; start(), offer() each x0 latent, stop() at the end.

    `on_decoded` runs on the decoder's thread. `lower_priority(pid)` puts the child below normal
    priority; by default app/core/platform.py's `lower_child_priority`, when that exists.
    """

    def __init__(
        self,
        engine: Path,
        vae: Path,
        out_dir: Path,
        on_decoded: Callable[[DecodedPreview], None],
        *,
        threads: int = DECODER_THREADS,
        vae_tiling: bool = False,
        log_path: Path | None = None,
        env: Mapping[str, str] | None = None,
        lower_priority: Callable[[int], object] | None = None,
    ) -> None:
        self.engine = Path(engine)
        self.vae = Path(vae)
        self.out_dir = Path(out_dir)
        self.log_path = Path(log_path) if log_path is not None else self.out_dir / LOG_NAME
        self._on_decoded = on_decoded
        self._common = CommonArgs(
            threads=max(1, int(threads)), placement=Placement(vae="cpu"), vae_tiling=vae_tiling
        )
        # On the CPU: the child sees no GPU (and takes none of its memory from the diffusion)
        self._env = engine_environment({**(env or {}), **self._common.environment()})
        self._lower_priority = lower_priority or getattr(platform, "lower_child_priority", None)
        self._cond = threading.Condition()
        self._pending: tuple[int, Path] | None = None
        self._stopping = False
        self._proc: StageProcess | None = None
        self._thread: threading.Thread | None = None
        self._watched: Path | None = None
        self._stale: dict[str, tuple[int, int, int]] = {}
        self.last_step = 0  # the newest step delivered
        self.decoded = 0
        self.skipped = 0  # offers replaced by a newer one before their decode began
        self.failures = 0
        self.error: StepwiseError | None = None  # why the decoder gave up, if it did

    # -- control (any thread) -----------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("a PreviewDecoder starts once")
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._thread = threading.Thread(target=self._work, name="preview-decoder", daemon=True)
        self._thread.start()

    def offer(self, step: int, latent: Path | str) -> None:
        """The engine wrote the x0 latent of `step`; decode it when the decoder is free, unless
        a newer one comes first."""
        with self._cond:
            if self._stopping or step <= self.last_step:
                return
            if self._pending is not None:
                if step <= self._pending[0]:
                    return
                self.skipped += 1
            self._pending = (int(step), Path(latent))
            self._cond.notify_all()

    def watch(self, folder: Path | str) -> None:
        """Also find the x0 latents in `folder` by looking (every WATCH_POLL_S while idle), for
        callers that do not forward the engine's `x0` events. Files already there (a previous
        engine process's) are ignored unless the engine rewrites them."""
        folder = Path(folder)
        with self._cond:
            self._stale = {name: ident for name, (_, ident) in _x0_files(folder).items()}
            self._watched = folder
            self._cond.notify_all()

    @property
    def child_pid(self) -> int | None:
        """The pid of the decode in progress, if any."""
        with self._cond:
            return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def busy(self) -> bool:
        """A decode is in progress or waiting."""
        with self._cond:
            return self._proc is not None or self._pending is not None

    def wait_idle(self, timeout_s: float) -> bool:
        """Waits until nothing is pending or decoding (tests, benches); True if it became idle."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while (self._proc is not None or self._pending is not None) and self.running:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def stop(self, timeout_s: float = JOIN_TIMEOUT_S) -> None:
        """Ends the decode in progress at once and the worker; idempotent."""
        with self._cond:
            self._stopping = True
            self._pending = None
            proc = self._proc
            self._cond.notify_all()
        if proc is not None:
            with contextlib.suppress(Exception):  # it may be exiting by itself right now
                proc.stop(grace_s=STOP_GRACE_S)
        if self._thread is not None:
            self._thread.join(timeout_s)
            if self._thread.is_alive():  # pragma: no cover - every wait in the worker is bounded
                log.warning("preview decoder: the worker did not end within %.0f s", timeout_s)

    def __enter__(self) -> PreviewDecoder:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- the worker ---------------------------------------------------------------------------

    def _work(self) -> None:
        try:
            while True:
                with self._cond:
                    while self._pending is None and not self._stopping:
                        if self._watched is None:
                            self._cond.wait()
                        elif not self._look():
                            self._cond.wait(WATCH_POLL_S)
                    if self._stopping:
                        return
                    assert self._pending is not None
                    step, latent = self._pending
                    self._pending = None
                self._decode(step, latent)
                with self._cond:
                    self._cond.notify_all()  # wait_idle
                if self.failures >= MAX_FAILURES:
                    log.warning("preview decoder: giving up after %d failures", self.failures)
                    return
        finally:
            self._remove_partial(None)
            with self._cond:
                self._stopping = True
                self._pending = None
                self._cond.notify_all()

    def _look(self) -> bool:
        """With the lock held: offers the newest new x0 file of the watched folder, if any."""
        assert self._watched is not None
        newest: tuple[int, str, tuple[int, int, int]] | None = None
        for name, (step, ident) in _x0_files(self._watched).items():
            if self._stale.get(name) == ident or step <= self.last_step:
                continue
            if newest is None or step > newest[0]:
                newest = (step, name, ident)
        if newest is None:
            return False
        step, name, ident = newest
        self._stale[name] = ident  # seen; a rewrite by the engine counts again
        self._pending = (step, self._watched / name)
        return True

    def _decode(self, step: int, latent: Path) -> None:
        staged = self.out_dir / STAGED_LATENT
        png = self.out_dir / decoded_png_name(step)
        try:
            shutil.copyfile(latent, staged)
        except OSError as exc:  # the engine removed it already: a newer one is on its way
            log.debug("preview decoder: step %d skipped: %s", step, exc)
            self.skipped += 1
            return
        started = time.monotonic()
        args = VaeDecodeArgs(vae=self.vae, load_latent=staged, output=png, common=self._common)
        try:
            proc = StageProcess(
                build_argv(self.engine, args), log_path=self.log_path, env=self._env
            )
        except StepwiseError as exc:
            self._failed(exc)
            return
        with self._cond:
            self._proc = proc
            stopping = self._stopping
        try:
            if stopping:
                proc.stop(grace_s=0)
            elif self._lower_priority is not None:
                with contextlib.suppress(Exception):
                    self._lower_priority(proc.pid)
            proc.result(DECODE_TIMEOUT_S)
        except EngineStopped:
            return  # stop() asked for it
        except (StepwiseError, TimeoutError) as exc:
            if not self._stopping:
                self._failed(exc)
            return
        finally:
            proc.close(grace_s=0)
            with self._cond:
                self._proc = None
            self._remove_partial(png if self._stopping else None)
        if self._stopping or not png.is_file():
            return
        self.failures = 0
        self.decoded += 1
        self.last_step = max(self.last_step, step)
        preview = DecodedPreview(step, png, time.monotonic() - started)
        try:
            self._on_decoded(preview)
        except Exception:  # a receiver's bug must not end previews for the run
            log.exception("preview decoder: on_decoded failed for step %d", step)

    def _failed(self, exc: BaseException) -> None:
        self.failures += 1
        if isinstance(exc, StepwiseError):
            self.error = exc
        log.warning("preview decoder: decode failed (%d): %s", self.failures, exc)

    def _remove_partial(self, png: Path | None) -> None:
        """The staged latent, and after a stop the engine's temporary PNG (`NAME.tmp`)."""
        names = [STAGED_LATENT]
        if png is not None:
            names.append(png.name + ".tmp")
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.out_dir / name)


def _x0_files(folder: Path) -> dict[str, tuple[int, tuple[int, int, int]]]:
    """name → (step, identity: inode, mtime, size) of the x0 files in `folder`."""
    found: dict[str, tuple[int, tuple[int, int, int]]] = {}
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                step = x0_step(entry.name)
                if step is None:
                    continue
                try:
                    st = entry.stat()
                except OSError:
                    continue
                found[entry.name] = (step, (st.st_ino, st.st_mtime_ns, st.st_size))
    except OSError:
        pass
    return found


__all__ = [
    "DECODER_THREADS",
    "DecodedPreview",
    "PreviewDecoder",
    "decoded_png_name",
    "decoder_threads",
    "decoder_wanted",
    "x0_step",
]
