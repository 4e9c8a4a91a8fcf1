"""What one job is before anything runs: the parameter table, the spec, preflight, advice."""
