"""The stage cache.

- `keys.py`: what each stage's output depends on (a table row joins its stage's key only away
  from its default, so a new row changes no old key); a change reruns exactly the stages after
  the one its row invalidates.
- `key_sources.py`: the engine part of a key (native/build.py's input hash from the stamp beside
  the binary; a stamp-less byte-identical copy keeps its build's keys through
  `<data>/engine-builds.json`).
- `store.py`: the content-addressed, size-capped store.
"""
