"""installer/: what the NSIS script promises, checked in its text, and that it compiles (when
makensis is installed: ~2 s); the pieces of the Windows build that need no Windows (the layout's
path file, the launchers, the chroot's mirror, the engine comparison's argv). The whole setup
.exe and its run under wine: `./test.sh` after the suite (installer/build.py windows --wine-test).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.paths import APP_NAME
from app.engine import locate

ROOT = Path(__file__).resolve().parents[2]
NSI = ROOT / "installer" / "stepwise.nsi"


def _script() -> str:
    # Comments (; ...) are not the script; a word there must not satisfy a check.
    return "\n".join(
        line
        for line in NSI.read_text(encoding="utf-8").splitlines()
        if not line.lstrip().startswith(";")
    )


def test_per_user_install_without_administrator_rights() -> None:
    text = _script()
    assert "RequestExecutionLevel user" in text
    assert 'InstallDir "$LOCALAPPDATA\\Programs\\${APP}"' in text
    assert "HKLM" not in text and "$PROGRAMFILES" not in text
    assert "SetShellVarContext current" in text


def test_no_file_association() -> None:
    text = _script()
    assert not re.search(r"HKCR|Software\\Classes|FileAssociation|APP_ASSOCIATE", text)


def test_start_menu_entry_and_uninstaller() -> None:
    text = _script()
    assert 'CreateShortCut "$SMPROGRAMS\\${APP}.lnk" "$INSTDIR\\Stepwise.exe"' in text
    assert 'WriteUninstaller "$INSTDIR\\Uninstall.exe"' in text
    assert 'Delete "$SMPROGRAMS\\${APP}.lnk"' in text


def test_user_data_is_kept_unless_asked() -> None:
    text = _script()
    # the data folder is the one platformdirs gives the app on Windows (appauthor=False)
    assert f'!define APP "{APP_NAME}"' in text
    assert '!define DATA_DIR "$LOCALAPPDATA\\${APP}"' in text
    deletions = [line for line in text.splitlines() if "${DATA_DIR}" in line and "RMDir" in line]
    assert deletions == ['  RMDir /r "${DATA_DIR}"']
    # ...inside the optional (/o: unticked) uninstall section that /PURGE ticks
    assert re.search(
        r'Section /o "un\.\$\(DataSection\)" UnSecData\s+RMDir /r "\$\{DATA_DIR\}"', text
    )
    assert '${GetOptions} $R0 "/PURGE" $R1' in text
    # the program folder is never the data folder or above it
    assert "$LOCALAPPDATA\\Programs" in text


def test_both_languages_have_every_string() -> None:
    text = _script()
    names = re.findall(r"LangString (\w+) \$\{LANG_(\w+)\}", text)
    english = {n for n, lang in names if lang == "ENGLISH"}
    chinese = {n for n, lang in names if lang == "SIMPCHINESE"}
    assert english and english == chinese


@pytest.mark.skipif(shutil.which("makensis") is None, reason="makensis is not installed (nsis)")
def test_the_installer_compiles(tmp_path: Path) -> None:
    bundle = tmp_path / "Stepwise"
    for name in (
        "Stepwise.exe",
        "stepwise-cli.exe",
        "engine/sd-stage.exe",
        "python/python.exe",
        "app/__main__.py",
    ):
        (bundle / name).parent.mkdir(parents=True, exist_ok=True)
        (bundle / name).write_bytes(b"placeholder")
    out = tmp_path / "Stepwise-1.2.3-setup.exe"
    flag = "/" if sys.platform == "win32" else "-"
    result = subprocess.run(
        ["makensis", f"{flag}V2", f"{flag}DVERSION=1.2.3", f"{flag}DBUNDLE={bundle}",
         f"{flag}DOUTFILE={out}", str(NSI)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert out.read_bytes()[:2] == b"MZ"
    assert "warning" not in result.stdout.lower(), result.stdout


def test_uninstall_removes_every_folder_the_layout_installs() -> None:
    """What installer/windows_bundle.py puts beside the launchers is what the uninstaller (and a
    reinstall) removes: nothing of an old version is left, nothing of the user's is touched."""
    sys.path.insert(0, str(ROOT / "installer"))
    import windows_bundle

    text = _script()
    macro = text.split("!macro RemoveProgram", 1)[1].split("!macroend", 1)[0]
    for folder in ("python", "app", "resources", windows_bundle.ENGINE_FOLDER):
        assert f'RMDir /r "$INSTDIR\\{folder}"' in macro
    for exe in ("Stepwise.exe", "stepwise-cli.exe"):
        assert f'Delete "$INSTDIR\\{exe}"' in macro
    assert "DATA_DIR" not in macro


def test_the_installed_engine_is_found_beside_the_app(tmp_path: Path, monkeypatch) -> None:
    """The install layout: app/ and engine/sd-stage(.exe) side by side; locate finds it there
    before asking native/build.py (which an installed Stepwise does not have)."""
    sys.path.insert(0, str(ROOT / "installer"))
    import windows_bundle

    assert locate.BUNDLED_ENGINE_DIR == windows_bundle.ENGINE_FOLDER
    engine = tmp_path / windows_bundle.ENGINE_FOLDER / locate.BINARY_NAME
    engine.parent.mkdir()
    engine.write_bytes(b"#!/bin/sh\n")
    engine.chmod(0o755)
    monkeypatch.setattr(locate, "repo_root", lambda: tmp_path)
    monkeypatch.delenv(locate.ENGINE_ENV, raising=False)
    assert locate.find_sd_stage() == engine


def test_the_embeddable_python_finds_the_app_and_nothing_else() -> None:
    sys.path.insert(0, str(ROOT / "installer"))
    import windows_bundle

    lines = windows_bundle.PTH_LINES
    assert lines[0] == "python312.zip" and "Lib\\site-packages" in lines
    assert ".." in lines  # the install folder: `import app`
    assert lines[-1] == "import site"  # the packages' own .pth files are read


def test_the_chroot_comes_from_the_hosts_own_debian_mirror(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "installer"))
    import wine_chroot

    sources = tmp_path / "sources.list.d"
    sources.mkdir()
    (sources / "other.sources").write_text("Types: deb\nURIs: https://example.invalid/node\n")
    (sources / "debian.sources").write_text(
        "Types: deb\nURIs: http://mirror.invalid/debian\nSuites: bookworm\n\n"
        "Types: deb\nURIs: http://mirror.invalid/debian-security\n"
    )
    assert wine_chroot.host_mirror(sources) == "http://mirror.invalid/debian"
    (sources / "debian.sources").unlink()
    with pytest.raises(wine_chroot.ChrootError, match="no Debian archive"):
        wine_chroot.host_mirror(sources)


def test_the_linux_engine_gets_the_windows_runs_inputs_and_its_own_outputs(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "installer"))
    import engine_compare

    windows = ["C:\\x\\sd-stage.exe", "--stage", "diffuse", "--load-embeddings",
               "Z:\\w\\模型 é\\runs\\a\\conditioning.bin", "--checkpoint-dir",
               "Z:\\w\\模型 é\\runs\\a\\checkpoints", "--save-latent",
               "Z:\\w\\模型 é\\runs\\a\\final_latent.bin", "-t", "1"]  # fmt: skip
    argv = engine_compare.linux_argv(windows, Path("/e/sd-stage"), tmp_path, "/w", tmp_path / "o")
    assert argv[0] == "/e/sd-stage"
    assert argv[4] == str(tmp_path / "模型 é" / "runs" / "a" / "conditioning.bin")
    assert argv[6] == str(tmp_path / "o" / "checkpoints")
    assert argv[8] == str(tmp_path / "o" / "final_latent.bin")
    assert argv[9:] == ["-t", "1"]
    (tmp_path / "a.bin").write_bytes(b"\x00\x01\x02")
    (tmp_path / "b.bin").write_bytes(b"\x00\x01\x03")
    assert engine_compare.same(tmp_path / "a.bin", tmp_path / "a.bin") == (True, "")
    ok, detail = engine_compare.same(tmp_path / "a.bin", tmp_path / "b.bin")
    assert not ok and "first difference at byte 2" in detail


@pytest.mark.skipif(shutil.which("x86_64-w64-mingw32-gcc-posix") is None, reason="no mingw-w64")
def test_the_launchers_are_windows_programs_of_their_kind(tmp_path: Path) -> None:
    """Stepwise.exe is a GUI program (no console window), stepwise-cli.exe a console one."""
    sys.path.insert(0, str(ROOT / "installer"))
    import windows_bundle

    windows_bundle.make_launchers(tmp_path)
    for name, subsystem in (("Stepwise.exe", 2), ("stepwise-cli.exe", 3)):  # WINDOWS_GUI / CUI
        data = (tmp_path / name).read_bytes()
        pe = int.from_bytes(data[0x3C:0x40], "little")
        assert data[pe : pe + 4] == b"PE\0\0"
        optional = pe + 24
        assert int.from_bytes(data[optional + 68 : optional + 70], "little") == subsystem
