"""One GPU check (issue 19): everything the project has never measured on a GPU, side by side
in one run, printed as one table of ratios and written as JSON.

    python bench/gpu_check.py [--engine PATH] [--json PATH] [--models-dir DIR] [--shapes 4b,9b]
    python bench/gpu_check.py --quick [--engine PATH] [--json PATH]      (lavapipe, tiny models)

Full mode builds sd-stage for the machine's GPU (bench/gpu_probe.py: Vulkan, or a CUDA build
where the driver has no Vulkan), writes random-weight sets of the real klein 4B and 9B shapes
(scripts/make_shape_models.py, into a temporary folder unless --models-dir) and measures per
model, txt2img with the DiT on the GPU:

- diffuse s/step, the staged engine ÷ sd-cli, at the user's 352×864 and at 1024² (sd-cli's
  own "sampling completed, taking X s"; the staged side sums the diffuse stage's step events);
- planned ÷ measured device memory per stage (llm-encode; diffuse at both sizes, vae-decode at
  the larger): the plan's total on the GPU (`--plan`) against the driver's own account while
  the real stage ran (nvidia-smi memory.used, else Vulkan's memory budget through
  `sd-stage --list-devices`); where the driver's figure does not move (lavapipe) ggml's
  logged buffers, marked ggml-log;
- llm-encode on the GPU ÷ on the CPU (wall time of the stage process);
- the decoded-preview cost beside a GPU DiT: mean step time with the CPU preview decoder
  watching the checkpoints (bench/preview_decoder.py's runner) ÷ the staged diffuse above, at
  the user's size;
- the largest size of the user's aspect that fits a simulated 8 GiB card with a 2 GiB
  allocation cap, as the app's memory plan finds it
  (app/pipeline/execute/job_plan.largest_fast_size).

--quick runs the same table on lavapipe (Mesa's Vulkan on the CPU) with the suite's tiny
models at tiny sizes and 2 steps; the llm-encode row uses a 2-layer real-paths tiny text
encoder there (lavapipe needs many minutes for the 28-layer one); sd-cli runs its text encoder
and VAE on the CPU. tests/engine/test_gpu_check.py runs it. How to run it: bench/GPU_CHECK.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "scripts"))

import gpu_probe  # noqa: E402
import preview_decoder  # noqa: E402

from app.engine.argv import CommonArgs, Placement, StageArgs, build_argv  # noqa: E402
from app.engine.events import Progress  # noqa: E402
from app.engine.plan import plan_stage  # noqa: E402
from app.engine.process import StageProcess  # noqa: E402
from app.engine.tiny_models import ModelSet, TinySpec, generate_models  # noqa: E402
from app.pipeline.api import DeviceInfo  # noqa: E402
from app.pipeline.execute.job_plan import engine_planner_for, largest_fast_size  # noqa: E402
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles  # noqa: E402
from tests.engine.real_engine import COND, Job, monolithic_argv, stage_args  # noqa: E402

GIB = 1024**3
MIB = 1024**2
STAGE_TIMEOUT_S = 1800.0
USER_ASPECT = (352, 864)
BUFFER_LINE = re.compile(r"(\S+) (compute|params backend) buffer size[:= ]+([0-9.]+) ?MB\((\w+)\)")
SAMPLING_LINE = re.compile(r"sampling completed, taking ([0-9.]+)s")


@dataclasses.dataclass(frozen=True)
class Mode:
    name: str
    sizes: Mapping[str, tuple[int, int]]  # "user" / "square" → width, height
    steps: int
    threads: int
    decoder_threads: int
    sd_cli_extra: tuple[str, ...] = ()


FULL = Mode("full", {"user": USER_ASPECT, "square": (1024, 1024)}, 4, os.cpu_count() or 4, 4)
# lavapipe: the text encoder and VAE of sd-cli on the CPU (lavapipe runs an LLM for minutes)
QUICK = Mode("quick", {"user": (32, 80), "square": (64, 64)}, 2, 1, 1,
             ("--clip-on-cpu", "--vae-on-cpu"))  # fmt: skip


def say(text: str) -> None:
    print(f"gpu_check: {text}", file=sys.stderr, flush=True)


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or not b or not math.isfinite(a / b):
        return None
    return a / b


class Check:
    """One run's engine, device, environment and the rows measured so far."""

    def __init__(self, engine: Path, mode: Mode, env: dict[str, str], scratch: Path) -> None:
        self.engine, self.mode, self.env, self.scratch = engine, mode, env, scratch
        self.sd_cli = engine.with_name("sd-cli" + engine.suffix)
        self.device = gpu_probe.gpu_device(engine, env)
        self.memory_source, self._read_used = gpu_probe.used_reader(engine, env, self.device)
        self.rows: list[dict] = []
        self.budget = (8 * GIB, 2 * GIB)  # the simulated card: memory, largest allocation
        self.sd_cli_device_bytes: int | None = None  # the last sd-cli run's driver figure
        self.step_s: dict[str, float] = {}  # size label → the staged diffuse's mean step

    def row(self, id_: str, measure: str, a, b, unit: str, divide=True, **extra) -> None:
        numbers = isinstance(a, float | int) and isinstance(b, float | int)
        r = ratio(a, b) if divide and numbers else None
        self.rows.append({"id": id_, "measure": measure, "a": a, "b": b, "unit": unit,
                          "ratio": r, **extra})  # fmt: skip
        say(f"{id_}: {a} / {b} {unit} = {r}")

    def common(self, **placement: str) -> CommonArgs:
        return CommonArgs(threads=self.mode.threads, placement=Placement(**placement))

    # ---- one stage, timed, with the driver's memory account -------------------------------

    def run(self, args: StageArgs, log: Path) -> dict:
        """Runs a stage (-v: ggml logs its buffers) while sampling the device's memory."""
        argv = [*build_argv(self.engine, args), "-v"]
        started = time.perf_counter()
        steps: list[float] = []
        with gpu_probe.MemorySampler(self._read_used) as sampler:
            with StageProcess(argv, log_path=log, env=self.env) as proc:
                for event in proc.events(idle_timeout_s=STAGE_TIMEOUT_S):
                    if isinstance(event, Progress):
                        steps.append(event.seconds)
                proc.result(STAGE_TIMEOUT_S)
        wall = time.perf_counter() - started
        return {"wall_s": wall, "steps": steps, "device_bytes": sampler.peak_above_start,
                "ggml_bytes": self._ggml_device_bytes(log)}  # fmt: skip

    @staticmethod
    def _ggml_device_bytes(log: Path) -> int | None:
        """ggml's own count: every runner's weights and first compute buffer on the device."""
        seen: dict[tuple[str, str], float] = {}
        for found in BUFFER_LINE.finditer(log.read_text(encoding="utf-8", errors="replace")):
            runner, kind, mb, where = found.groups()
            if where.upper() == "VRAM":
                seen.setdefault((runner, kind), float(mb))
        return round(sum(seen.values()) * MIB) if seen else None

    def memory_row(self, model: str, stage: str, size: str, args: StageArgs, run: dict) -> None:
        planned = plan_stage(self.engine, args.to_argv(), self.env).on(self.device)
        measured, source = run["device_bytes"], self.memory_source
        if measured is None:  # the driver's figure did not move (lavapipe): ggml's own
            measured, source = run["ggml_bytes"], "ggml-log"
        self.row(f"memory:{model}:{stage}:{size}", f"{stage} device memory: planned ÷ measured",
                 planned.total_bytes / MIB if planned else None,
                 measured / MIB if measured else None, "MiB", source=source)  # fmt: skip

    # ---- the measurements -----------------------------------------------------------------

    def model(self, name: str, models: ModelSet, llm_row: Path) -> None:
        out = self.scratch / name
        out.mkdir(parents=True, exist_ok=True)
        self.llm_rows(name, models, llm_row, out)
        for label, (w, h) in self.mode.sizes.items():
            job = Job(width=w, height=h, steps=self.mode.steps)
            self.step_rows(name, models, job, label, out / label)
        self.preview_row(name, models, out)
        self.fits_row(name, models)

    def llm_rows(self, name: str, models: ModelSet, llm_row: Path, out: Path) -> None:
        base = stage_args(models, Job(), out)["llm-encode"]
        times = {}
        for device in ("cpu", self.device):
            row_args = dataclasses.replace(
                base, llm=llm_row, save_embeddings=out / f"cond-{device}.bin",
                common=self.common(te=device),
            )  # fmt: skip
            say(f"{name}: llm-encode on {device}")
            run = self.run(row_args, out / f"llm-{device}.log")
            times[device] = run["wall_s"]
            if device != "cpu":
                self.memory_row(name, "llm-encode", "-", row_args, run)
        self.row(f"llm:{name}", "llm-encode wall time: GPU ÷ CPU", times[self.device],
                 times["cpu"], "s", device=self.device)  # fmt: skip
        cond = out / COND
        if llm_row == models.llm:
            os.replace(out / "cond-cpu.bin", cond)
        else:  # quick: the diffuse stages need the tiny DiT's own text encoder
            args = dataclasses.replace(base, save_embeddings=cond, common=self.common(te="cpu"))
            self.run(args, out / "llm-cond.log")

    def step_rows(self, name: str, models: ModelSet, job: Job, label: str, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        (out / COND).write_bytes((out.parent / COND).read_bytes())
        stages = stage_args(models, job, out)
        size = f"{job.width}x{job.height}"
        diffuse = dataclasses.replace(stages["diffuse"], common=self.common(diffusion=self.device))
        say(f"{name}: staged diffuse {size}")
        run = self.run(diffuse, out / "diffuse.log")
        staged = sum(run["steps"]) / job.steps
        self.step_s[label] = statistics.fmean(run["steps"])  # the preview row's "alone"
        self.memory_row(name, "diffuse", size, diffuse, run)
        if label == "square":  # the VAE's memory at the larger size (one run less on lavapipe)
            decode = dataclasses.replace(stages["vae-decode"], common=self.common(vae=self.device))
            self.memory_row(name, "vae-decode", size, decode, self.run(decode, out / "decode.log"))
        say(f"{name}: sd-cli {size}")
        mono = self.sd_cli_step_s(models, job, out / "sd-cli")
        self.row(f"step:{name}:{label}", "diffuse s/step: staged ÷ sd-cli", staged, mono, "s",
                 size=size, sd_cli_device_bytes=self.sd_cli_device_bytes)  # fmt: skip

    def sd_cli_step_s(self, models: ModelSet, job: Job, out: Path) -> float | None:
        out.mkdir(parents=True, exist_ok=True)
        argv = [*monolithic_argv(self.sd_cli, models, job, out), *self.mode.sd_cli_extra]
        argv[argv.index("-t") + 1] = str(self.mode.threads)
        # sampled like the stages, so that both sides pay the sampler alike
        with gpu_probe.MemorySampler(self._read_used) as sampler:
            done = subprocess.run(
                argv, env=self.env, capture_output=True, text=True, errors="replace",
                timeout=STAGE_TIMEOUT_S, check=False,
            )  # fmt: skip
        self.sd_cli_device_bytes = sampler.peak_above_start
        (out / "sd-cli.log").write_text(done.stdout + done.stderr, encoding="utf-8")
        found = SAMPLING_LINE.findall(done.stdout + done.stderr)
        if done.returncode != 0 or not found:
            say(f"sd-cli failed ({done.returncode}): see {out / 'sd-cli.log'}")
            return None
        return float(found[-1]) / job.steps

    def preview_row(self, name: str, models: ModelSet, out: Path) -> None:
        w, h = self.mode.sizes["user"]
        job = Job(width=w, height=h, steps=self.mode.steps)
        folder = out / "user"
        diffuse = dataclasses.replace(
            stage_args(models, job, folder)["diffuse"], common=self.common(diffusion=self.device)
        )
        say(f"{name}: diffuse beside the preview decoder")
        config = f"t{self.mode.decoder_threads}-low"
        with gpu_probe.MemorySampler(self._read_used):  # as the staged run ("alone") was
            beside = preview_decoder._run(config, self.engine, models, diffuse, out / "pv-dec")
        decode = statistics.fmean(beside.decode_s) if beside.decode_s else None
        self.row(f"preview:{name}", "step with decoded previews ÷ step alone", beside.step_s,
                 self.step_s["user"], "s", size=f"{w}x{h}", decoder=config,
                 decode_s=decode, previews=beside.delivered)  # fmt: skip

    def fits_row(self, name: str, models: ModelSet) -> None:
        budget, cap = self.budget
        spec = JobSpec(
            models=ModelFiles(str(models.diffusion), str(models.llm), str(models.vae)),
            prompt="a red fox in the snow", steps=self.mode.steps,
            devices=DeviceChoice(llm=self.device, diffusion=self.device, vae=self.device,
                                 threads=1, max_alloc_mb=cap // MIB),
        )  # fmt: skip
        infos = {self.device: DeviceInfo(self.device, "simulated", budget, budget, cap)}
        planner = engine_planner_for(self.engine, spec, self.scratch / f"plan-{name}")
        (self.scratch / f"plan-{name}").mkdir(exist_ok=True)
        size = largest_fast_size(spec, *USER_ASPECT, planner, infos)
        w, h = size if size else (None, None)
        self.row(f"fits:{name}", f"largest fast size of {USER_ASPECT[0]}:{USER_ASPECT[1]} in "
                 f"{budget / GIB:g} GiB, cap {cap / GIB:g} GiB (width, height)", w, h, "px",
                 divide=False, budget_bytes=budget, cap_bytes=cap)  # fmt: skip


def _models(mode: Mode, names: list[str], folder: Path) -> list[tuple[str, ModelSet, Path]]:
    if mode is QUICK:
        tiny = generate_models(folder)
        two = generate_models(folder, dataclasses.replace(TinySpec.real_file_paths(), llm_layers=2))
        return [("tiny", tiny, two.llm)]
    import make_shape_models

    sets = []
    for name in names:
        say(f"writing the klein-{name} shapes (random weights) into {folder}")
        paths = make_shape_models.make(folder, name)
        models = ModelSet(paths.diffusion, paths.llm, paths.vae)
        sets.append((name, models, models.llm))
    return sets


def print_table(report: dict) -> None:
    print(f"engine: {report['engine']} ({report['backend']}: {report['why']})")
    print(f"device: {report['device']}; mode {report['mode']}; memory from {report['memory']}")
    print(f"| {'measure':48} | {'row':28} | {'a':>10} | {'b':>10} | unit | {'a÷b':>7} |")
    print(f"|{'-' * 50}|{'-' * 30}|{'-' * 12}|{'-' * 12}|------|{'-' * 9}|")
    for r in report["rows"]:
        a, b = (f"{v:.4g}" if isinstance(v, float) else str(v) for v in (r["a"], r["b"]))
        q = f"{r['ratio']:.3f}" if r["ratio"] is not None else "-"
        note = f" ({r['source']})" if "source" in r else ""
        print(f"| {r['measure'][:48]:48} | {r['id'][:28]:28} | {a:>10} | {b:>10} | "
              f"{r['unit']:4} | {q:>7} |{note}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="lavapipe, tiny models, tiny sizes")
    parser.add_argument("--engine", type=Path, help="this sd-stage (sd-cli beside it): no build")
    parser.add_argument("--json", type=Path, help="also write the table here")
    parser.add_argument("--models-dir", type=Path, help="keep the model sets here")
    parser.add_argument("--shapes", default="4b,9b", help="full mode: 4b, 9b or both")
    parser.add_argument("--budget-gib", type=float, default=8.0)
    parser.add_argument("--cap-gib", type=float, default=2.0)
    args = parser.parse_args(argv)
    mode = QUICK if args.quick else FULL
    env = dict(os.environ)
    if args.quick:
        env["GGML_VK_VISIBLE_DEVICES"] = "0"  # lavapipe is a CPU-type device ggml skips
        os.environ.update(env)  # the preview runner starts its stages with os.environ
    backend = gpu_probe.Backend("vulkan", "--quick: lavapipe") if args.quick else None
    backend = backend or gpu_probe.detect_backend()
    if args.engine is not None:
        engine = args.engine.resolve()
    elif not backend.name:
        raise SystemExit(f"gpu_check: no GPU to check ({backend.why}); --quick runs lavapipe")
    else:
        say(f"building sd-stage for {backend.name}: {backend.why}")
        engine = gpu_probe.build_engine(backend.name, on_line=say)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="stepwise-gpu-check-") as tmp:
        scratch = Path(tmp)
        check = Check(engine, mode, env, scratch / "runs")
        check.budget = (int(args.budget_gib * GIB), int(args.cap_gib * GIB))
        shapes = [s for s in args.shapes.split(",") if s]
        for name, models, llm_row in _models(mode, shapes, args.models_dir or scratch / "m"):
            check.model(name, models, llm_row)
    report = {"mode": mode.name, "backend": backend.name, "why": backend.why,
              "engine": str(engine), "device": check.device, "memory": check.memory_source,
              "steps": mode.steps, "seconds": round(time.monotonic() - started, 1),
              "rows": check.rows}  # fmt: skip
    print_table(report)
    if args.json:
        gpu_probe.write_json_atomic(args.json, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
