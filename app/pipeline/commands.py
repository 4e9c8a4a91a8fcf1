"""Moved: the commands live in app/cli/ and the selftest in app/pipeline/selftest.py.

Only the old name of the selftest's picture helper stays here, for the callers not yet moved
(tests/ui, tests/pipeline/test_execute.py, bench/runner.py); delete it once they import
app.pipeline.selftest.selftest_images.
"""

from __future__ import annotations

from app.pipeline.selftest import selftest_images as _selftest_images

__all__ = ["_selftest_images"]
