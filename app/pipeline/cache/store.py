"""Content-addressed, size-capped cache of deterministic stage outputs (conditionings, latents).

Layout under paths.stage_cache_dir:

    <key[:2]>/<key>/entry.json      {"format": 1, "kind": str, "files": {name: {"sha256", "size"}}}
    <key[:2]>/<key>/<name>          the cached files

An entry is built in a temporary sibling folder and renamed into place, so it is whole or
absent. Every read verifies each file's sha256; a damaged entry is deleted and reported as a
miss (the caller recomputes). A hit touches entry.json; eviction removes the least recently
used entries until the total size is under the limit.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import BinaryIO

from app.core.atomic import fsync_file, write_text_atomic, write_with_atomic
from app.core.safe_files import SafeFileError, read_bytes
from app.engine.tensorfile import file_sha256

log = logging.getLogger(__name__)

CACHE_FORMAT = 1
ENTRY_FILE = "entry.json"
_KEY = re.compile(r"^[0-9a-f]{64}$")
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def cache_key(kind: str, parts: Mapping[str, object]) -> str:
    """A stable key for a stage output from everything that affects it."""
    payload = json.dumps({"kind": kind, **parts}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class StageCache:
    """The on-disk cache; safe to share between processes (entries appear atomically)."""

    def __init__(self, root: Path, limit_bytes: int) -> None:
        self.root = Path(root)
        self.limit_bytes = int(limit_bytes)

    def _entry_dir(self, key: str) -> Path:
        if not _KEY.match(key):
            raise ValueError(f"bad cache key {key!r}")
        return self.root / key[:2] / key

    def get(self, key: str, dest: Mapping[str, Path]) -> bool:
        """Copies the entry's files to `dest` {name: path}; False on a miss or damage."""
        folder = self._entry_dir(key)
        meta = self._read_meta(folder)
        if meta is None:
            return False
        files = meta["files"]
        if set(dest) - set(files):
            return False
        for name in dest:
            src = folder / name
            try:
                ok = (
                    src.stat().st_size == files[name]["size"]
                    and file_sha256(src) == files[name]["sha256"]
                )
            except OSError:
                ok = False
            if not ok:
                log.warning("cache entry %s is damaged (%s); deleting it", key, name)
                self.delete(key)
                return False
        for name, target in dest.items():
            _copy_atomic(folder / name, Path(target))
            # The copy may itself be damaged in transit; the caller checks hashes too.
        self._touch(folder)
        return True

    def contains(self, key: str) -> bool:
        return self._read_meta(self._entry_dir(key)) is not None

    def put(self, key: str, kind: str, files: Mapping[str, Path]) -> None:
        """Stores copies of `files` {name: path} under `key`; an existing entry is kept. A
        cache that cannot be written (a file where its folder goes, a full disk) is logged
        and skipped: the run has its files, the next one recomputes."""
        try:
            self._put(key, kind, files)
        except (OSError, SafeFileError) as exc:
            log.warning("the stage cache %s cannot be written (%s); not cached", self.root, exc)

    def _put(self, key: str, kind: str, files: Mapping[str, Path]) -> None:
        folder = self._entry_dir(key)
        if self._read_meta(folder) is not None:
            self._touch(folder)
            return
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=folder.parent))
        try:
            meta_files = {}
            for name, src in files.items():
                if not _NAME.match(name):
                    raise ValueError(f"bad cache file name {name!r}")
                shutil.copyfile(src, staging / name)
                fsync_file(staging / name)
                meta_files[name] = {
                    "sha256": file_sha256(staging / name),
                    "size": (staging / name).stat().st_size,
                }
            write_text_atomic(
                staging / ENTRY_FILE,
                json.dumps(
                    {
                        "format": CACHE_FORMAT,
                        "kind": kind,
                        "created": time.time(),
                        "files": meta_files,
                    }
                ),
            )
            if folder.exists():  # a damaged leftover
                shutil.rmtree(folder, ignore_errors=True)
            try:
                os.rename(staging, folder)
            except OSError:
                if self._read_meta(folder) is None:
                    raise
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
        self.evict()

    def delete(self, key: str) -> None:
        folder = self._entry_dir(key)
        # Rename first so a half-deleted entry never looks whole.
        trash = folder.with_name(f".{key}.del{os.getpid()}")
        try:
            os.rename(folder, trash)
        except OSError:
            trash = folder
        shutil.rmtree(trash, ignore_errors=True)

    def entries(self) -> list[tuple[str, float, int]]:
        """(key, last use, bytes) of every whole entry."""
        out: list[tuple[str, float, int]] = []
        if not self.root.is_dir():
            return out
        for shard in self.root.iterdir():
            if not shard.is_dir() or len(shard.name) != 2:
                continue
            for folder in shard.iterdir():
                if not _KEY.match(folder.name):
                    continue
                meta_path = folder / ENTRY_FILE
                try:
                    used = meta_path.stat().st_mtime
                    size = sum(p.stat().st_size for p in folder.iterdir())
                except OSError:
                    continue
                out.append((folder.name, used, size))
        return out

    def total_bytes(self) -> int:
        return sum(size for _, _, size in self.entries())

    def evict(self) -> list[str]:
        """Removes least recently used entries until the cache fits its limit."""
        entries = sorted(self.entries(), key=lambda e: e[1])
        total = sum(size for _, _, size in entries)
        removed = []
        for key, _, size in entries:
            if total <= self.limit_bytes:
                break
            self.delete(key)
            total -= size
            removed.append(key)
        return removed

    def _read_meta(self, folder: Path) -> dict | None:
        try:
            meta = json.loads(read_bytes(folder / ENTRY_FILE).decode("utf-8"))
            if meta.get("format") != CACHE_FORMAT or not isinstance(meta.get("files"), dict):
                raise ValueError("format")
            for name, rec in meta["files"].items():
                size = rec.get("size")
                if (
                    not _NAME.match(name)
                    or not isinstance(rec.get("sha256"), str)
                    or not isinstance(size, int)
                    or isinstance(size, bool)
                ):
                    raise ValueError(f"files: {name}")
            return meta
        except FileNotFoundError:
            return None
        except (OSError, ValueError, AttributeError, TypeError, SafeFileError) as exc:
            if folder.exists():
                log.warning("cache entry %s is damaged (%s); deleting it", folder.name, exc)
                shutil.rmtree(folder, ignore_errors=True)
            return None

    @staticmethod
    def _touch(folder: Path) -> None:
        now = time.time()
        try:
            os.utime(folder / ENTRY_FILE, (now, now))
        except OSError:
            pass


def _copy_atomic(src: Path, dest: Path) -> None:
    def writer(handle: BinaryIO) -> None:
        with open(src, "rb") as f:
            shutil.copyfileobj(f, handle)

    write_with_atomic(dest, writer)
