"""The job queue: many jobs run one after another by a worker.

- `jobs.py`: the queue in the data folder (`queue/queue.db`); `listing.py`: what it shows
  (`queue list`, the seeds in use, the views); `store.py`: its SQLite store (WAL,
  one transaction per change; a damaged database moved to `queue/damaged/<time>/`, salvaged row
  by row); `db.py`: the schema and rows (each row kept twice with a sha256; forged rows refused
  one by one); `salvage.py`: what a damaged database still holds (SQLite's rows and a raw scan
  of its pages and -wal); `legacy_json.py`: queue.json of older versions imported once.
- `views.py`: each job's state derived from its run folder (`runs/<job id>`); `records.py`;
  `claim.py`: `JobClaim`, a lock per job (pid + process start time); `variations.py`: N seeds /
  prompt lines of one job.
- `worker.py`: `run_queue`, one job after another through `PipelineAPI.execute` (never deletes a
  `runs/<id>` it did not make; a full disk, `FailureKind.NO_ROOM`, stops it with the jobs
  queued); `work_gate.py`: `WorkGate` holds it while the work policy says wait and suspends a
  running job through `RunControl.suspend(by=POLICY)`.
"""
