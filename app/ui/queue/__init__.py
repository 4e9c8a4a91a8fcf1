"""The queue in the window: "Add to queue" beside Run all, the Queue dock, the compare view
and the start-up offer to continue the queue. `install_queue(window, panel, paths)` is called
from app/ui/shell/features.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.core.paths import AppPaths
    from app.ui.generation.panel import GenerationPanel
    from app.ui.queue.controller import QueueController
    from app.ui.window_host import WindowHost


def install_queue(window: WindowHost, panel: GenerationPanel, paths: AppPaths) -> QueueController:
    from app.ui.queue.controller import install

    return install(window, panel, paths)


__all__ = ["install_queue"]
