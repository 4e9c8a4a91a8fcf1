"""What one job is before anything runs.

- `params.py`: the parameter table (one row per parameter: CLI flag, sd-cli flags, kind,
  default, limits, the stage it invalidates); `spec.py`: `JobSpec` (`guided`: cfg ≠ 1), its
  types checked from the table when read; `catalog.py`: what the engine offers (`DeviceInfo`,
  `EngineCatalog`).
- `preflight.py` (+ `frame_checks.py`, `output_file.py`): every value checked before any stage
  runs (finite floats, clean text, the engine's limits, each model's kind by its header, `run
  -o`); a parameter in an error is `naming.named(p)`: `{name}` reads "VAE (--vae)" for the
  CLI (never the settings key), `{param}` lets the UI put its own words.
- `advice.py`: klein advice as notes (`Note(code, params)`); `presets.py`: the edit presets and
  `outpaint_prompt` (applied by `Pipeline.create_run`, so run.json and the keys hold it);
  `sdcli_import.py`: an sd-cli command line into a job; `identity.py`: fast identities of big
  files; `run_space.py`: the disk a run needs; `unused_values.py`: values a job would ignore,
  refused; `loras.py`: the prompt's `<lora:…>` tags and their files.
"""
