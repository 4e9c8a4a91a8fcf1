"""A test-only stand-in for Windows' own icuuc.dll (System32 since Windows 10 1703), which wine
does not have and Qt >= 6.10's Qt6Core imports. It exports exactly what the bundled Qt6Core.dll
imports from icuuc.dll (read from the DLL with objdump, so it cannot drift from the pinned Qt);
ucnv_open fails with U_FILE_ACCESS_ERROR, so Qt keeps its built-in codecs and reaches none of
the others. The wine test puts it in its own prefix's system32; it is never shipped.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

U_FILE_ACCESS_ERROR = 4
OBJDUMP = "x86_64-w64-mingw32-objdump"
GCC = "x86_64-w64-mingw32-gcc-posix"


def imported_names(dll: Path, from_dll: str = "icuuc.dll") -> list[str]:
    """The functions `dll` imports from `from_dll` (its import table, `objdump -p`)."""
    text = subprocess.run(
        [OBJDUMP, "-p", str(dll)], capture_output=True, text=True, check=True
    ).stdout
    names: list[str] = []
    inside = False
    for line in text.splitlines():
        if "DLL Name:" in line:
            inside = line.split("DLL Name:", 1)[1].strip().lower() == from_dll.lower()
            continue
        match = re.match(r"\s+[0-9a-f]+\s+\d+\s+(\w+)$", line) if inside else None
        if match:
            names.append(match.group(1))
    return names


def source(names: list[str]) -> str:
    """C source of the stub (x64 has one calling convention: a stub returning 0 is a safe stand-in
    for every function Qt could only reach after a successful ucnv_open)."""
    lines = ["/* Test-only icuuc.dll stand-in: see installer/windows/icuuc_stub.py. */"]
    lines.append("__declspec(dllexport) void *ucnv_open(const char *name, int *error) {")
    lines.append(f"    (void)name; if (error) *error = {U_FILE_ACCESS_ERROR}; return 0;")
    lines.append("}")
    for name in names:
        if name != "ucnv_open":
            lines.append(f"__declspec(dllexport) void *{name}(void) {{ return 0; }}")
    return "\n".join(lines) + "\n"


def build(qt6core: Path, out: Path) -> Path:
    """Compile icuuc.dll for what `qt6core` imports; returns its path."""
    names = imported_names(qt6core)
    if not names:
        raise RuntimeError(f"{qt6core} imports nothing from icuuc.dll: the stub is not needed")
    c_file = out.with_suffix(".c")
    c_file.write_text(source(names), encoding="utf-8")
    subprocess.run([GCC, "-shared", "-O1", "-s", "-o", str(out), str(c_file)], check=True)
    return out
