"""A new stage-cache size applies when Settings OK is pressed, not after a restart (issue 16)."""

from __future__ import annotations

from app.core.paths import app_paths
from app.core.settings import Settings
from app.jobs.run_session import RunSession
from app.pipeline.runner import BYTES_PER_MB
from app.ui.shell.features import apply_settings


def test_a_new_cache_size_applies_at_once(qtbot) -> None:
    session = RunSession(app_paths())
    before = session.pipeline.cache.limit_bytes  # type: ignore[attr-defined]
    assert before == Settings().cache_limit_mb * BYTES_PER_MB
    apply_settings(session, Settings(cache_limit_mb=700))
    assert session.pipeline.cache.limit_bytes == 700 * BYTES_PER_MB  # type: ignore[attr-defined]
    apply_settings(session, Settings(cache_limit_mb=700, engine_path=""))
    assert session.pipeline.cache.limit_bytes == 700 * BYTES_PER_MB  # type: ignore[attr-defined]
