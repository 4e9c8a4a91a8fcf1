"""The one table of the CLI's exit codes (the engine's own codes are in native/PROTOCOL.md),
and which code an error the command stopped on gets."""

from __future__ import annotations

from enum import IntEnum

from app.core.errors import DiskFullError, InputError, OutputError, StepwiseError


class Exit(IntEnum):
    OK = 0  # done
    FAILED = 1  # failed: the message says why, the engine log where
    USAGE = 2  # bad command line: a flag, value, file or folder given cannot be used; nothing ran
    DOES_NOT_FIT = 3  # the memory plan says the job cannot fit (`run --force` runs it anyway)
    SUSPENDED = 6  # suspended (Ctrl+C): continue with `resume DIR`
    CANCELLED = 7  # cancelled (Ctrl+C twice)
    INTERRUPTED = 130  # Ctrl+C outside a run


def exit_for(error: StepwiseError) -> Exit:
    """USAGE when the command line gave what cannot be used (a value out of range, a missing or
    unreadable picture, a mask of another size, a folder that cannot be written, a device the
    engine does not list: refused before any stage); FAILED for the rest (a file Stepwise wrote
    that is damaged, a full disk, a run another process holds). A failed render is FAILED too,
    from its terminal event (app/cli/execute.py)."""
    from app.pipeline.job.preflight import DeviceMissingError  # the pipeline only when needed

    if isinstance(error, DiskFullError):
        return Exit.FAILED
    if isinstance(error, (InputError, OutputError, DeviceMissingError)):
        return Exit.USAGE
    return Exit.FAILED
