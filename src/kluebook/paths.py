"""Where the project's folders are: the repository root, configs, results, book and caches.

`KLUEBOOK_DATA_DIR` names the folder of real KLUE v1.1 files (the layout of KLUE's
`klue_benchmark/`) that real-data tests and benchmarks read; by default it is the folder that
`kluebook data fetch` fills.
"""

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
KLUE_DATA = Path(os.environ.get("KLUEBOOK_DATA_DIR", ROOT / "data" / "klue_benchmark"))
