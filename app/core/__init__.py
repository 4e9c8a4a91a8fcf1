"""Paths, settings, errors, atomic files and logging; no Qt, used by every other package."""
