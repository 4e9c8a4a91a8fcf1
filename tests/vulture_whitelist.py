"""Names vulture cannot see used (tests/test_code_quality.py runs it on app/ tests/ bench/
scripts/ with this file): Qt calls the overrides, app/cli/__init__.py finds the commands by
name, Python calls a module's __getattr__, and argv reads the placement fields by name."""

from app.cli import commands, imaging_commands, queue_commands
from app.engine.argv import Placement
from app.jobs import workers

_ = object()

# logging calls a handler's handleError (app/core/logs.py).
_.handleError

# Qt event handlers and filters: Qt calls them.
_.mouseMoveEvent
_.mouseReleaseEvent
_.mouseDoubleClickEvent
_.wheelEvent
_.eventFilter
_.closeEvent

# The CLI's dispatch: app/cli/__init__.py looks up f"cmd_{name}".
commands.cmd_run
commands.cmd_resume
commands.cmd_status
commands.cmd_selftest
imaging_commands.cmd_prepare
imaging_commands.cmd_composite
queue_commands.cmd_add
queue_commands.cmd_list
queue_commands.cmd_run
queue_commands.cmd_retry
queue_commands.cmd_remove
queue_commands.cmd_move
queue_commands.cmd_pause
queue_commands.cmd_resume

# The pipeline's face hands names out through the module hook (app/pipeline/__init__.py).
_.__getattr__

# tests/jobs/test_workers.py calls it in a child process's script (a string).
workers.running_app_threads

# argv.PLACEMENT_MODULES names the fields ("te", "diffusion", "vae") that to_argv reads.
Placement.te

# Attributes that keep an object alive for the window's life (its signals are connected; the
# attribute is the only reference), and a Qt override's parameter Qt passes.
_.status_fields  # app/ui/shell/main_window.py: the status bar's fields
_.before_after  # app/ui/workspace/controller.py: the `\\` before/after key
_.disambiguation  # app/ui/words/i18n.py: QTranslator.translate's signature

# Listed only so the translation files have them (context "MaskHistory"; the canvas and the mask
# controller hand these labels over untranslated).
_.HISTORY_LABELS
