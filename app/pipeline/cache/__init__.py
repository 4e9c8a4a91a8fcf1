"""The stage cache: what a stage's output is keyed by, and the store that keeps it."""
