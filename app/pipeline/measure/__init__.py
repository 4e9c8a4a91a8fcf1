"""Measure this computer: each stage on each listed device, one report, the settings it
would choose."""
