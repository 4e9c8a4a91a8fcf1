"""The widget kit every feature uses: binding a widget to the job form, sections, sliders,
buttons bound to actions, guards, message boxes and the window protocols (window_host)."""
