"""Where Stepwise keeps settings, data, caches and logs (relocatable with STEPWISE_HOME)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "Stepwise"
HOME_ENV = "STEPWISE_HOME"


@dataclass(frozen=True)
class AppPaths:
    """The folders of one installation; nothing is created until `ensure()`."""

    config_dir: Path
    data_dir: Path
    cache_dir: Path
    log_dir: Path

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def runs_dir(self) -> Path:
        return self.data_dir / "runs"

    @property
    def models_dir(self) -> Path:
        return self.data_dir / "models"

    @property
    def measure_dir(self) -> Path:
        """Measure this computer's reports (Markdown + JSON), to send with a question."""
        return self.data_dir / "measure"

    @property
    def stage_cache_dir(self) -> Path:
        return self.cache_dir / "stages"

    def ensure(self) -> AppPaths:
        for folder in (self.config_dir, self.data_dir, self.cache_dir, self.log_dir):
            folder.mkdir(parents=True, exist_ok=True)
        return self


def app_paths(environ: dict[str, str] | None = None) -> AppPaths:
    """STEPWISE_HOME puts everything under one folder (portable installs, tests)."""
    env = os.environ if environ is None else environ
    home = env.get(HOME_ENV)
    if home:
        root = Path(home).expanduser().resolve()
        return AppPaths(root / "config", root / "data", root / "cache", root / "logs")
    dirs = platformdirs.PlatformDirs(APP_NAME, appauthor=False)
    return AppPaths(
        Path(dirs.user_config_dir),
        Path(dirs.user_data_dir),
        Path(dirs.user_cache_dir),
        Path(dirs.user_log_dir),
    )
