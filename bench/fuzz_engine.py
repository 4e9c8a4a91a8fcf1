"""Fuzz the real sd-stage with mutated tensor files of every kind and print a table of outcomes.

    python bench/fuzz_engine.py [--count 1000] [--kinds latent,embeddings,...] [--jobs 2]
                                [--seed 0] [--sd-stage PATH] [--work DIR] [--keep]

Kinds and the stage that reads them are in tests/engine/fuzz.py (the suite's bounded run,
tests/engine/test_fuzz.py, uses the same code). Exit 0 when every case ended with a documented
exit code (0, 4, 5): no signal, no exit 1, no hang; the folders of other cases are kept and
listed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.engine.locate import build_engine  # noqa: E402
from tests.engine.fuzz import KINDS, campaign, make_corpus, table  # noqa: E402
from tests.models.generate import generate_models  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=1000, help="mutated files per kind")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated")
    parser.add_argument("--jobs", type=int, default=2, help="engine processes at once")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sd-stage", type=Path, default=None)
    parser.add_argument("--work", type=Path, default=None, help="folder for models and cases")
    parser.add_argument("--keep", action="store_true", help="keep every case's folder")
    args = parser.parse_args()
    kinds = tuple(k for k in args.kinds.split(",") if k)
    unknown = set(kinds) - set(KINDS)
    if unknown:
        parser.error(f"unknown kinds {sorted(unknown)}; known: {', '.join(KINDS)}")
    binary = args.sd_stage or build_engine()  # cached: builds only after an edit of native/
    work = args.work or Path(tempfile.mkdtemp(prefix="stepwise-fuzz-"))
    models = generate_models(work / "models")
    corpus = make_corpus(binary, models, work / "corpus")
    started = time.monotonic()
    outcomes = campaign(corpus, kinds, args.count, work / "cases", args.seed, args.jobs, args.keep)
    print(f"sd-stage: {binary}\nseed {args.seed}, {args.count} files per kind, "
          f"{time.monotonic() - started:.0f} s wall, {args.jobs} at once\n")  # fmt: skip
    print(table(outcomes))
    bad = [o for o in outcomes if not o.ok]
    for o in bad:
        print(f"DEFECT {o.kind} {o.mutation}: {o.code} ({o.case})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
