"""installer/: what the NSIS script promises, checked in its text, and that it compiles (when
makensis is installed: ~2 s). Building and smoke-testing the bundle itself is too slow for the
default run: `python installer/build.py && python installer/build.py smoke` (README)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.paths import APP_NAME

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
    (bundle / "_internal").mkdir(parents=True)
    for name in ("Stepwise.exe", "stepwise-cli.exe", "_internal/sd-stage.exe"):
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
