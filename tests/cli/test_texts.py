"""The CLI has English for every failure kind and every note code, with the note's params."""

from __future__ import annotations

from app.cli.texts import FAILURE_TEXTS, NOTE_TEXTS, note_text
from app.pipeline.failures import FailureKind, Note, NoteCode


def test_every_failure_kind_and_note_code_has_english() -> None:
    assert set(FAILURE_TEXTS) == set(FailureKind)
    assert set(NOTE_TEXTS) == set(NoteCode)
    assert all(text.strip() for text in (*FAILURE_TEXTS.values(), *NOTE_TEXTS.values()))


def test_notes_are_formatted_with_their_params() -> None:
    note = Note(NoteCode.FLAG_NO_EFFECT, {"flag": "--guidance", "value": "3.5"})
    assert note_text(note) == "--guidance 3.5 does nothing for klein; ignored."
    assert note_text(Note(NoteCode.FLAG_NOT_NEEDED, {"flag": "--color", "value": ""})).startswith(
        "--color: each"
    )
    assert "(" in note_text(Note(NoteCode.CFG_NOT_ONE))  # a missing param still says something
