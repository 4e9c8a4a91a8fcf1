"""The stage cache: hits, LRU eviction under the size cap, damaged entries never trusted."""

from __future__ import annotations

import os
from pathlib import Path

from app.pipeline.cache.store import StageCache, cache_key


def _file(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_put_then_get_copies_the_files(tmp_path: Path) -> None:
    cache = StageCache(tmp_path / "cache", 10_000_000)
    key = cache_key("llm-encode", {"prompt": "a cat"})
    cache.put(key, "llm-encode", {"conditioning.bin": _file(tmp_path, "c.bin", b"x" * 100)})
    out = tmp_path / "out" / "c.bin"
    assert cache.get(key, {"conditioning.bin": out})
    assert out.read_bytes() == b"x" * 100
    assert not cache.get(cache_key("llm-encode", {"prompt": "a dog"}), {"conditioning.bin": out})


def test_key_depends_on_every_part() -> None:
    a = cache_key("llm-encode", {"prompt": "p", "cfg": 1.0})
    assert a == cache_key("llm-encode", {"cfg": 1.0, "prompt": "p"})
    assert a != cache_key("llm-encode", {"prompt": "p", "cfg": 2.0})
    assert a != cache_key("vae-encode", {"prompt": "p", "cfg": 1.0})


def test_lru_eviction_keeps_recently_used(tmp_path: Path) -> None:
    cache = StageCache(tmp_path / "cache", 2500)
    keys = [cache_key("k", {"i": i}) for i in range(3)]
    for i, key in enumerate(keys[:2]):
        cache.put(key, "k", {"data.bin": _file(tmp_path, f"{i}.bin", bytes([i]) * 1000)})
        entry = cache.root / key[:2] / key / "entry.json"
        os.utime(entry, (1000 + i, 1000 + i))
    # Using the oldest entry makes it the newest.
    assert cache.get(keys[0], {"data.bin": tmp_path / "hit.bin"})
    cache.put(keys[2], "k", {"data.bin": _file(tmp_path, "2.bin", b"\x02" * 1000)})
    assert cache.contains(keys[0])
    assert not cache.contains(keys[1])
    assert cache.contains(keys[2])
    assert cache.total_bytes() <= 2500


def test_damaged_entry_is_deleted_and_missed(tmp_path: Path) -> None:
    cache = StageCache(tmp_path / "cache", 10_000_000)
    key = cache_key("vae-encode", {"image": "abc"})
    cache.put(key, "vae-encode", {"init_latent.bin": _file(tmp_path, "l.bin", b"L" * 4096)})
    stored = cache.root / key[:2] / key / "init_latent.bin"
    data = bytearray(stored.read_bytes())
    data[100] ^= 0xFF  # same size, different content
    stored.write_bytes(bytes(data))
    out = tmp_path / "out.bin"
    assert not cache.get(key, {"init_latent.bin": out})
    assert not out.exists()
    assert not cache.contains(key)
    # Recomputing stores a good entry again.
    cache.put(key, "vae-encode", {"init_latent.bin": _file(tmp_path, "l.bin", b"L" * 4096)})
    assert cache.get(key, {"init_latent.bin": out})
    assert out.read_bytes() == b"L" * 4096


def test_truncated_file_and_garbage_manifest_are_misses(tmp_path: Path) -> None:
    cache = StageCache(tmp_path / "cache", 10_000_000)
    k1, k2 = cache_key("a", {}), cache_key("b", {})
    cache.put(k1, "a", {"f.bin": _file(tmp_path, "f.bin", b"abc" * 100)})
    cache.put(k2, "b", {"f.bin": _file(tmp_path, "f.bin", b"abc" * 100)})
    (cache.root / k1[:2] / k1 / "f.bin").write_bytes(b"abc")
    (cache.root / k2[:2] / k2 / "entry.json").write_text("{not json")
    assert not cache.get(k1, {"f.bin": tmp_path / "o1"})
    assert not cache.get(k2, {"f.bin": tmp_path / "o2"})
    assert cache.entries() == []


def test_an_entry_missing_a_field_is_dropped_and_recomputed(tmp_path: Path) -> None:
    import json

    cache = StageCache(tmp_path / "cache", 10_000_000)
    key = cache_key("llm-encode", {"prompt": "a fox"})
    src = _file(tmp_path, "c.bin", b"y" * 64)
    cache.put(key, "llm-encode", {"conditioning.bin": src})
    entry = cache.root / key[:2] / key / "entry.json"
    meta = json.loads(entry.read_text())
    del meta["files"]["conditioning.bin"]["size"]  # an older or hand-edited entry
    entry.write_text(json.dumps(meta))
    out = tmp_path / "out" / "c.bin"
    assert not cache.get(key, {"conditioning.bin": out})  # a miss, no KeyError
    assert not entry.parent.exists() and not out.exists()
    cache.put(key, "llm-encode", {"conditioning.bin": src})
    assert cache.get(key, {"conditioning.bin": out}) and out.read_bytes() == b"y" * 64
