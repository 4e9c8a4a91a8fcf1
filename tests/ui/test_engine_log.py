"""The engine log viewer shows plain text: sd.cpp's terminal colours and progress-bar rewrites
are removed (the samples are the exact sequences of the pinned sd.cpp: examples/common/log.cpp
`"\\033[%d;1m[%-5s]\\033[0m "` and src/util.cpp's progress `"\\r%s %i/%i - %s\\033[K%s"`)."""

from __future__ import annotations

from app.ui.generation.log import EngineLogDialog, read_log_tail, strip_terminal_codes

# sd-cli --color output, byte for byte as sd.cpp prints it (INFO 34, WARN 35, ERROR 31).
SDCPP_COLOUR_LOG = (
    "\x1b[34;1m[INFO ]\x1b[0m stable-diffusion.cpp:236  - loading diffusion model from 'k.gguf'\n"
    "\x1b[35;1m[WARN ]\x1b[0m model.cpp:1012 - unknown tensor 'x' in model file\n"
    "  |=====>                                            | 1/4 - 2.10s/it\x1b[K"
    "\r  |=========================>                        | 2/4 - 2.05s/it\x1b[K"
    "\r  |==================================================| 4/4 - 2.01s/it\x1b[K\n"
    "\x1b[31;1m[ERROR]\x1b[0m ggml_extend.hpp:1400 - alloc failed\n"
    "\x1b]0;sd-cli\x07\x1b]8;;https://x.example\x1b\\link\x1b]8;;\x1b\\ done\n"
)
PLAIN = (
    "[INFO ] stable-diffusion.cpp:236  - loading diffusion model from 'k.gguf'\n"
    "[WARN ] model.cpp:1012 - unknown tensor 'x' in model file\n"
    "  |==================================================| 4/4 - 2.01s/it\n"
    "[ERROR] ggml_extend.hpp:1400 - alloc failed\n"
    "link done\n"
)


def test_colour_codes_and_progress_rewrites_are_removed() -> None:
    assert strip_terminal_codes(SDCPP_COLOUR_LOG) == PLAIN
    assert "\x1b" not in strip_terminal_codes(SDCPP_COLOUR_LOG)


def test_plain_text_is_unchanged() -> None:
    text = "[INFO ] a plain line with [brackets] and 100% and ;1m\nsecond line\n"
    assert strip_terminal_codes(text) == text


def test_the_viewer_and_the_log_file_show_plain_text(qtbot, tmp_path) -> None:
    log_file = tmp_path / "diffuse.log"
    log_file.write_bytes(SDCPP_COLOUR_LOG.encode("utf-8"))
    assert read_log_tail(str(log_file)) == PLAIN
    dialog = EngineLogDialog(SDCPP_COLOUR_LOG, str(log_file))
    qtbot.addWidget(dialog)
    assert dialog.view.toPlainText() == PLAIN
