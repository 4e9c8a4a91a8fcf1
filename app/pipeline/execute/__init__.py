"""Running a job's stages: scheduler, stages, engine stage, memory fit, accept."""
