"""Every file path the docs (*.md), the docstrings and the comments name exists: a rename
that leaves a reader looking for a file that moved fails here (issue 39: eleven were left).

A name is checked by its end: `run/records.py`, `app/pipeline/run/records.py` and `records.py`
all name app/pipeline/run/records.py. Only Python and Markdown files are checked (a run's
`run.json` is no file of the repository)."""

from __future__ import annotations

import ast
import re
import subprocess
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A path-like word ending in .py or .md (backquotes, brackets and punctuation around it aside).
PATH_WORD = re.compile(r"(?<![\w./~-])((?:[\w.-]+/)*[\w-]+\.(?:py|md))(?![\w/])")
# Files outside the repository, named on purpose.
ELSEWHERE = frozenset(
    {
        "DESIGN.md",  # the project's shared design notes
        "sdcpp-facts.md",  # the shared notes on stable-diffusion.cpp
        "measure/measure-TIME.md",  # what `python -m app measure` writes
    }
)


def _tracked() -> list[str]:
    done = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.split()


def _texts() -> list[tuple[str, str]]:
    """(where, text): every Markdown file, and every docstring and comment of a Python file."""
    texts = []
    for rel in _tracked():
        path = ROOT / rel
        if rel.endswith(".md"):
            texts.append((rel, path.read_text(encoding="utf-8")))
        elif rel.endswith(".py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
                if isinstance(node, kinds):
                    doc = ast.get_docstring(node, clean=False)
                    if doc:
                        texts.append((f"{rel}:{getattr(node, 'lineno', 1)}", doc))
            with open(path, encoding="utf-8") as f:
                for token in tokenize.generate_tokens(f.readline):
                    if token.type == tokenize.COMMENT:
                        texts.append((f"{rel}:{token.start[0]}", token.string))
    return texts


def _exists(word: str, tracked: list[str]) -> bool:
    if word in ELSEWHERE:
        return True
    return any(t == word or t.endswith("/" + word) for t in tracked)


def test_every_named_file_exists() -> None:
    tracked = _tracked()
    missing = sorted(
        {
            f"{where}: {word}"
            for where, text in _texts()
            for word in PATH_WORD.findall(text)
            if not _exists(word, tracked)
        }
    )
    assert missing == [], "\n".join(missing)


ARCHITECTURE_MAX_WORDS = 2000
APP = ROOT / "app"


def test_architecture_md_is_a_map() -> None:
    """A map, not a feature list (it had grown to 5,632 words): one line per folder and the
    "where a change goes" table; the details live in the packages' docstrings."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    words = len(text.split())
    assert words <= ARCHITECTURE_MAX_WORDS, f"ARCHITECTURE.md has {words} words"
    assert "## Where a change goes" in text
    packages = sorted(p.name for p in APP.iterdir() if (p / "__init__.py").is_file())
    rows = {m for m in re.findall(r"^\| `(\w+)/` \|", text, flags=re.MULTILINE)}
    assert set(packages) <= rows, f"one line per folder: {sorted(set(packages) - rows)}"
    for package in packages:  # where the details went
        assert ast.get_docstring(ast.parse((APP / package / "__init__.py").read_text())), package
