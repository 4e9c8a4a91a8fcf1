"""File-dialog filters for the pictures Stepwise reads and writes."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp")


def image_file_filter() -> str:
    images = QCoreApplication.translate("FileFilters", "Images")
    everything = QCoreApplication.translate("FileFilters", "All files")
    return f"{images} (*.png *.jpg *.jpeg *.webp *.bmp);;{everything} (*)"


def png_file_filter() -> str:
    return QCoreApplication.translate("FileFilters", "PNG images") + " (*.png)"
