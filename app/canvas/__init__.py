"""The painting document (QtCore/QtGui only; no engine, pipeline or jobs).

- The document (image + mask; every mask change gets a revision and its rectangle is logged),
  tools, undo history (each mask step only its rectangle).
- `mask_facts.py`: the mask as uint8 and its bounding boxes, cached per revision and updated by
  the changed rectangles only (what the UI reads per keystroke and stroke).
- `generated.py`: the one placement rule: every frame of a run (step previews, decoded steps,
  results) placed in the open photo's coordinates through the run's prepare record.
"""
