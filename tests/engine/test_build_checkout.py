"""The build folder is shared by checkouts with the same source and patches (a fresh clone
reuses a finished build); CMake configures from a copy of native/'s project named by its content
(build.source_snapshot), so checkouts with the same sources never reconfigure each other's build;
one configured for other sources is configured afresh, not refused."""

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


def _checkout(folder: Path, extra: str = "") -> Path:
    """A checkout's native/ project: CMakeLists.txt and src/ (with a subfolder, as src/sd)."""
    (folder / "src" / "sd").mkdir(parents=True)
    (folder / "CMakeLists.txt").write_text("project(sd_stage)\n")
    (folder / "src" / "main.cpp").write_text("int main() { return 0; }\n" + extra)
    (folder / "src" / "sd" / "stage_api.h").write_text("#pragma once\n")
    (folder / "README.md").write_text("not part of the build\n")
    return folder


def test_two_checkouts_of_one_commit_configure_from_one_source_folder(tmp_path: Path) -> None:
    """Issue 30: CMake keys its cache by the source folder's path, so two checkouts of one
    commit reconfigured each other's cached build. Both configure from one folder named by the
    sources' content; the cache one configured, the other keeps."""
    cache = tmp_path / "cache"
    first = build.source_snapshot(cache, _checkout(tmp_path / "a" / "native"))
    second = build.source_snapshot(cache, _checkout(tmp_path / "b" / "native"))
    assert first == second and first.parent == cache / "native"
    assert (first / "src" / "sd" / "stage_api.h").is_file() and not (first / "README.md").exists()
    build_dir = tmp_path / "cache" / "build" / "cpu-0123"
    _configured(build_dir, first)
    build._forget_other_checkout(build_dir, second)
    assert (build_dir / "CMakeCache.txt").is_file()  # not reconfigured


def test_other_native_sources_get_their_own_source_folder(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = build.source_snapshot(cache, _checkout(tmp_path / "a" / "native"))
    changed = _checkout(tmp_path / "b" / "native")
    (changed / "src" / "sd" / "stage_api.h").write_text("#pragma once\n// changed\n")
    other = build.source_snapshot(cache, changed)
    assert other != first
    assert (other / "src" / "sd" / "stage_api.h").read_text().endswith("// changed\n")
    build_dir = cache / "build" / "cpu-0123"
    _configured(build_dir, first)
    build._forget_other_checkout(build_dir, other)
    assert not (build_dir / "CMakeCache.txt").exists()  # configured afresh for these sources


def test_the_build_key_covers_every_native_source_file(monkeypatch, tmp_path: Path) -> None:
    """An edit under src/sd/ (the engine's hooks) is a new build, not the cached one."""
    native = tmp_path / "native"
    (native / "src" / "sd").mkdir(parents=True)
    (native / "CMakeLists.txt").write_text("project(x)\n")
    (native / "src" / "main.cpp").write_text("int main() {}\n")
    hook = native / "src" / "sd" / "stage_hooks.cpp"
    hook.write_text("// v1\n")
    monkeypatch.setattr(build, "NATIVE", native)
    before = build.native_hash()
    hook.write_text("// v2\n")
    assert build.native_hash() != before


def test_python_caches_are_not_build_inputs(tmp_path: Path) -> None:
    """Issue 37 bug 5: native/windows/__pycache__/*.pyc changed the Windows build key, so a
    finished build read as "not built yet" once Python had imported cross_build.py."""
    (tmp_path / "cross_build.py").write_text("X = 1\n")
    before = build.hash_tree(tmp_path)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "cross_build.cpython-312.pyc").write_bytes(b"\x00compiled")
    (tmp_path / "stray.pyc").write_bytes(b"\x00")
    assert build.hash_tree(tmp_path) == before
    (tmp_path / "cross_build.py").write_text("X = 2\n")
    assert build.hash_tree(tmp_path) != before
