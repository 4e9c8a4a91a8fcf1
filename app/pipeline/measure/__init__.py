"""Measure this computer (`python -m app measure`, Help → Measure this computer).

- `probe.py`: each stage on each listed device with dummy inputs (`job_plan.stage_args`): s/step
  with flash attention off/on, planned vs ggml-logged memory, llm-encode per device, VAE
  tiled/untiled, `largest_fast_size`; cancellable.
- `report.py`: the settings it would choose and applying them (`Settings.job`), the report as
  Markdown + JSON in `data/measure/`; `session.py`: the setup and one measurement. The GUI side:
  `jobs/measure_worker.py` + `ui/shell/measure_dialog.py`.
"""
