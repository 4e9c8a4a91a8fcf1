from __future__ import annotations

import pytest

from tests.jobs.guard import leak_guard  # noqa: F401  (fixture)


@pytest.fixture(autouse=True)
def _no_leaks(leak_guard: None) -> None:  # noqa: F811
    """Every jobs test fails if it leaves a runner thread or child process behind."""
