"""The run folder on disk: manifest, records, format versions, entries, lock, inputs."""
