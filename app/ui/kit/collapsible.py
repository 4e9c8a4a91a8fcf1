"""A collapsible section: a header button (an arrow and the title) over a content widget that
shows only while the section is open, and a problem line under the header.

A problem never hides in a closed section: when one appears the section opens itself, the
header carries a ⚠ for as long as it lasts, and while the user keeps the section closed the
problem's text stays visible under the header. Only the user's own clicks are reported
(`user_toggled`), so what a problem opened is not remembered as the user's choice."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

PROBLEM_MARK = "⚠"
PROBLEM_COLOR = "#e57373"


class CollapsibleSection(QWidget):
    """`content` under a header that opens and closes it (the title comes translated)."""

    user_toggled = Signal(bool)

    def __init__(
        self,
        title: str,
        content: QWidget,
        parent: QWidget | None = None,
        *,
        opened: bool = True,
        name: str = "",
    ) -> None:
        super().__init__(parent)
        self.setObjectName(f"section_{name}" if name else "section")
        self.title = title
        self.summary = ""
        self.problem = ""
        self.header = QToolButton(self)
        self.header.setObjectName("sectionHeader")
        self.header.setCheckable(True)
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setAutoRaise(True)
        # The title never sets the dock's width (a long summary is cut, not the dock widened).
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        font = self.header.font()
        font.setBold(True)
        self.header.setFont(font)
        self.problem_label = QLabel(self)
        self.problem_label.setObjectName("sectionProblem")
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet(f"color: {PROBLEM_COLOR}; padding-left: 18px;")
        self.problem_label.hide()
        self.content = content
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.header)
        layout.addWidget(self.problem_label)
        layout.addWidget(content)
        self.header.clicked.connect(self._clicked)
        self._update_header()
        self.set_open(opened)

    def is_open(self) -> bool:
        return self.header.isChecked()

    def set_open(self, opened: bool) -> None:
        self.header.setChecked(opened)
        self.header.setArrowType(Qt.ArrowType.DownArrow if opened else Qt.ArrowType.RightArrow)
        self.content.setVisible(opened)
        self._show_problem()

    def set_summary(self, text: str) -> None:
        """A short note after the title (e.g. how many pictures the section holds)."""
        self.summary = text
        self._update_header()

    def set_problem(self, text: str) -> None:
        """What is wrong inside ("" when nothing is): a new problem opens the section."""
        appeared = bool(text) and not self.problem
        self.problem = text
        if appeared:
            self.set_open(True)
        self._update_header()
        self._show_problem()

    def _clicked(self, checked: bool) -> None:
        self.set_open(checked)
        self.user_toggled.emit(checked)

    def _update_header(self) -> None:
        parts = [PROBLEM_MARK] if self.problem else []
        parts.append(self.title)
        if self.summary:
            parts.append(f"({self.summary})")
        self.header.setText(" ".join(parts))
        self.header.setToolTip(self.problem)

    def _show_problem(self) -> None:
        self.problem_label.setText(self.problem)
        self.problem_label.setVisible(bool(self.problem) and not self.is_open())
