"""The generation UI: small panes over app.jobs.generation.GenerationModel. The composition
root (app/ui/shell/features.py) makes the model over the window's job form, follows the
canvas document as the job's input, and adds the panel as a dock."""

from __future__ import annotations

from app.ui.generation.panel import GenerationPanel

__all__ = ["GenerationPanel"]
