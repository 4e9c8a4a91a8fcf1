"""The queue in the window: "Add to queue" beside Run all, the Queue dock, the compare view
and the start-up offer to continue the queue. `install_queue(window, panel, paths)` is called
from app/ui/generation/setup.py."""

from __future__ import annotations

from typing import Any


def install_queue(window: Any, panel: Any, paths: Any) -> Any:
    from app.ui.queue.controller import install

    return install(window, panel, paths)


__all__ = ["install_queue"]
