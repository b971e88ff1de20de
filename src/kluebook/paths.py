"""Where the project's folders are: the repository root, configs, results, book and caches."""

import os
from pathlib import Path

ROOT = Path(os.environ.get("KLUEBOOK_ROOT", Path(__file__).resolve().parents[2]))
CONFIGS = ROOT / "configs"
NOTEBOOKS = ROOT / "notebooks"
RESULTS = ROOT / "results"
BOOK = ROOT / "book"
RUNS = BOOK / "runs"
GENERATED = BOOK / "_generated"
CACHE = Path(os.environ.get("KLUEBOOK_CACHE", ROOT / ".cache"))
SHARED_KLUE_DATA = ROOT.parent / "shared" / "klue-data"
