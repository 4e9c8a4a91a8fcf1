"""The run folder on disk.

- `folder.py`: `Run` and run.json (`create_run`, `open_run`; its docstring is the format);
  `records.py`: typed records and every name inside a run folder; `format.py`: verification and
  format upgrades.
- `entries.py`: a new run only into an empty folder, no links, temp files of interrupted writes
  removed; `owned_entries.py`: the entries each owned folder may hold (run folder, queue,
  settings, cache) and how each is opened (`core/safe_files.py`; `bench/owned_files_matrix.py`
  plants a bad entry at each).
- `lock.py`: one process per run (`RunLock`); `inputs.py`: verified copies of image, mask and
  references, and `check_new_job(s)`; `checkpoints.py`: valid (hash-checked) checkpoints, shared
  with a branch, kept until `resume --start-over`; `status.py`: `status --json`.
"""
