"""The window shell: start-up, the main window and its actions, menus, status bar and the
dialogs of the window itself (Settings, Help, Measure). It composes the features; nothing
imports it but the entry point."""
