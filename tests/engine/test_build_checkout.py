"""The build folder is shared by checkouts with the same source and patches (a fresh clone
reuses a finished build); one configured for another checkout is configured afresh, not refused."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "native"))
import build  # noqa: E402


def _configured(folder: Path, source: Path) -> None:
    (folder / "CMakeFiles").mkdir(parents=True)
    (folder / "CMakeFiles" / "x.txt").write_text("x")
    (folder / "CMakeCache.txt").write_text(
        f"# cache\nCMAKE_HOME_DIRECTORY:INTERNAL={source}\nOTHER:STRING=1\n"
    )


def test_a_folder_configured_for_another_checkout_forgets_its_cache(tmp_path: Path) -> None:
    _configured(tmp_path, tmp_path / "elsewhere" / "native")
    build._forget_other_checkout(tmp_path)
    assert not (tmp_path / "CMakeCache.txt").exists()
    assert not (tmp_path / "CMakeFiles").exists()


def test_a_folder_configured_for_this_checkout_is_kept(tmp_path: Path) -> None:
    _configured(tmp_path, build.NATIVE)
    build._forget_other_checkout(tmp_path)
    assert (tmp_path / "CMakeCache.txt").is_file()
    assert (tmp_path / "CMakeFiles" / "x.txt").is_file()
