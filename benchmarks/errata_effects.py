"""What each erratum does to the official numbers on the real v1.1 dev files.

    KLUEBOOK_DATA_DIR=/path/to/klue_benchmark python benchmarks/errata_effects.py [--seed 7]

For every task of the errata manifest whose dev file is in KLUEBOOK_DATA_DIR (and is the file the
errata name), two sets of predictions are scored: the v1.1 gold itself, and the gold with errors
of the kinds models make (`bootstrap_speed.imperfect_predictions`, as the tests make them). Each
metric erratum prints the official value and its corrected variant; each label erratum, the
official value and the same predictions rescored against the corrected gold. A text erratum needs
predictions on the corrected items, so it prints how many items it changes; a pending erratum,
why it is not applied yet. Tasks whose dev file is not there are named.
"""

import argparse
import random
import sys
from pathlib import Path

from kluebook.common.paths import KLUE_DATA
from kluebook.data.loading import file_sha256
from kluebook.errata.corrections import corrected_values
from kluebook.errata.manifest import manifest
from kluebook.scoring.predictions import score_predictions
from kluebook.tasks import get_task, task_module

sys.path.insert(0, str(Path(__file__).parent))
from bootstrap_speed import imperfect_predictions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7, help="seed of the prediction errors")
    seed = parser.parse_args().seed
    print(f"errata {manifest().version}; real files from {KLUE_DATA}")
    for name in dict.fromkeys(e.task for e in manifest().errata):
        task = get_task(name)
        path = KLUE_DATA / task.files["dev"]
        if not path.is_file():
            print(f"\n{name}: no real dev file here ({task.files['dev']}): not measured")
            continue
        gold, sha = task_module(task).read_official(path), file_sha256(path)
        predictions = {
            "v1.1 gold": task_module(task).gold_predictions(gold),
            f"gold with errors (seed {seed})": imperfect_predictions(
                name, task_module(task).gold_predictions(gold), random.Random(seed)
            ),
        }
        print(f"\n{name}: {len(gold):,} dev items, {path.name} sha256 {sha[:12]}")
        for label, rows in predictions.items():
            metrics = score_predictions(task, gold, rows)
            corrected = corrected_values(task, gold, rows, metrics, sha)
            for erratum in manifest().of_task(name):
                if not erratum.applied:
                    print(f"  {erratum.id}: pending ({erratum.pending.split(':')[0]})")
                    continue
                if erratum.kind == "text":
                    items = len({edit.guid for edit in erratum.edits})
                    print(f"  {erratum.id}: changes {items} items; needs predictions on them")
                    continue
                for key, value in corrected.get(erratum.id, {}).items():
                    official = metrics[key]
                    print(
                        f"  {erratum.id} [{label}] {key}: official {official:.3f}, corrected "
                        f"{value:.3f} ({value - official:+.3f})"
                    )


if __name__ == "__main__":
    main()
