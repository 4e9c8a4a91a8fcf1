"""The job queue: many jobs run one after another by a worker."""
