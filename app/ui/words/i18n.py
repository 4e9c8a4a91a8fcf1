"""Translations straight from Qt .ts files: every resources/translations/<lang>/*.ts is merged at
start-up, so adding an area (painter.ts, generation.ts, ...) needs no build step and no .qm."""

from __future__ import annotations

import logging
import xml.etree.ElementTree as ET
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from app.ui import RESOURCES_DIR

log = logging.getLogger(__name__)

TRANSLATIONS_DIR = RESOURCES_DIR / "translations"
SOURCE_LANGUAGE = "en"
LANGUAGES = {"en": "English", "zh_CN": "简体中文"}


def QT_TRANSLATE_NOOP(context: str, source: str) -> str:
    """Marks `source` for translation in `context` (the i18n tests collect these calls) and
    returns it as is: a table of texts translated where it is shown."""
    return source


def choose_language(setting: str, system_locale: str | None = None) -> str:
    """The settings' choice when it is one we ship; otherwise follow the system locale."""
    if setting in LANGUAGES:
        return setting
    name = system_locale if system_locale is not None else QLocale.system().name()
    if name.startswith("zh"):
        # Traditional-script locales still read Simplified better than English.
        return "zh_CN"
    return SOURCE_LANGUAGE


def read_ts(path: Path) -> dict[tuple[str, str], str]:
    """(context, source) -> translation for the finished messages of one .ts file."""
    table: dict[tuple[str, str], str] = {}
    root = ET.parse(path).getroot()
    for context in root.iter("context"):
        name = context.findtext("name", default="")
        for message in context.iter("message"):
            source = message.findtext("source")
            node = message.find("translation")
            if source is None or node is None or not node.text:
                continue
            if node.get("type") in ("unfinished", "obsolete", "vanished"):
                continue
            table[(name, source)] = node.text
    return table


class TsTranslator(QTranslator):
    """A QTranslator over the merged .ts files of one language."""

    def __init__(self, language: str, folder: Path = TRANSLATIONS_DIR) -> None:
        super().__init__()
        self.table: dict[tuple[str, str], str] = {}
        self.qt_translator: QTranslator | None = None  # Qt's own strings, kept alive here
        lang_dir = folder / language
        for path in sorted(lang_dir.glob("*.ts")) if lang_dir.is_dir() else []:
            try:
                self.table.update(read_ts(path))
            except (OSError, ET.ParseError) as exc:
                # A broken translation file costs its strings, never the start-up.
                log.warning("Ignoring translation file %s: %s", path, exc)

    def translate(
        self, context: str, source: str, disambiguation: str | None = None, n: int = -1
    ) -> str | None:
        text = self.table.get((context, source))
        # None becomes a null QString, which Qt reads as "not here" and falls back to the source;
        # an empty string would blank the text instead.
        return text

    def isEmpty(self) -> bool:
        return not self.table


def install_translator(language: str) -> TsTranslator | None:
    """Installs the translator for `language` on the running application; None for English.

    Qt's own catalogue (qtbase_<language>.qm, shipped with PySide6) is installed alongside, so the
    standard buttons of message boxes and dialogs (Yes, Cancel, Close) are translated too.
    """
    if language == SOURCE_LANGUAGE:
        return None
    translator = TsTranslator(language)
    app = QCoreApplication.instance()
    if translator.isEmpty() or app is None:
        return None
    qt_translator = QTranslator()
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if qt_translator.load(f"qtbase_{language}", qt_dir):
        app.installTranslator(qt_translator)
        translator.qt_translator = qt_translator
    app.installTranslator(translator)
    return translator


def remove_translator(translator: TsTranslator) -> None:
    """Undoes `install_translator` (tests, a language switch)."""
    QCoreApplication.removeTranslator(translator)
    if translator.qt_translator is not None:
        QCoreApplication.removeTranslator(translator.qt_translator)
