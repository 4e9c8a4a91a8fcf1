"""The one table of the CLI's exit codes (the engine's own codes are in native/PROTOCOL.md)."""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    OK = 0  # done
    FAILED = 1  # failed: the message says why, the engine log where
    USAGE = 2  # bad command line
    DOES_NOT_FIT = 3  # the memory plan says the job cannot fit (`run --force` runs it anyway)
    SUSPENDED = 6  # suspended (Ctrl+C): continue with `resume DIR`
    CANCELLED = 7  # cancelled (Ctrl+C twice)
    INTERRUPTED = 130  # Ctrl+C outside a run
