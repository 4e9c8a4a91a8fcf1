"""The sd-stage client (native/PROTOCOL.md is the engine's contract); imports only core.

- `stage.py`: `Stage`, the stage names; `argv.py`: typed arguments per stage and `STAGE_MODELS`
  (the one stage ↔ module table); a stage on the CPU runs with no Vulkan device visible and no
  driver loaded (`CommonArgs.environment`).
- `locate.py`: finding sd-stage (and a build in progress); `process.py`: spawn, JSON-lines
  events (`events.py`), control over stdin, the stop ladder; `children.py`: every engine child
  joins its worker's `ChildGroup`.
- `devices.py` / `listing.py`: `--list-devices` with memory facts (`RecentDevices` reuses a
  listing a few seconds old); `catalog.py`: `--list-samplers`; `plan.py`: `--plan`, what a stage
  would allocate per device.
- `tensorfile.py`: tensor files; `tiny_models.py` and the shape generators: random-weight models
  for the tests and benches.
"""
