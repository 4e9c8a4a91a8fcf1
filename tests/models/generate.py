"""The tiny model generator now lives in the app (app/engine/tiny_models.py); this shim keeps
``tests.models.generate`` and ``python tests/models/generate.py OUT_DIR`` working."""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__" and __package__ in (None, ""):
    # Run as a script: the repository root is not on sys.path yet.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.engine.tiny_models import *  # noqa: F403
from app.engine.tiny_models import (
    GENERATOR_VERSION,
    ModelSet,
    TinySpec,
    generate_models,
    main,
)

__all__ = ["GENERATOR_VERSION", "ModelSet", "TinySpec", "generate_models", "main"]

if __name__ == "__main__":
    sys.exit(main())
