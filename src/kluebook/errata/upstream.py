"""The data errata's edits, built from the upstream patches themselves: each fix's version of an
official file (its `patch`, a commit or pull-request head of a clone of KLUE-benchmark/KLUE)
against the v1.1 file, read by the task's own reader. `python -m kluebook.errata.upstream CLONE`
writes them beside the manifest; the clone needs the pull requests' heads (`git fetch origin
'+refs/pull/*/head:refs/pull/*/head'`)."""

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.errata.edits import Edit, edits_between, write_edits
from kluebook.errata.manifest import HERE, Erratum, manifest
from kluebook.tasks import get_task, task_module

V1_1 = "3efd98708a40ff49251fddde35453f8fbb11f536"  # the commit the official files are pinned at


def file_at(clone: Path, ref: str, path: str, folder: Path) -> Path:
    """The official file `path` as of `ref` in `clone`, written into `folder`."""
    done = subprocess.run(
        ["git", "-C", str(clone), "show", f"{ref}:klue_benchmark/{path}"], capture_output=True
    )
    if done.returncode != 0:
        raise KluebookError(f"{ref}: no klue_benchmark/{path} in the clone")
    target = folder / ref.replace("/", "_") / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(done.stdout)
    return target


def patch_edits(erratum: Erratum, clone: Path) -> list[Edit]:
    """The edits of one data erratum, from its upstream patch against the v1.1 file it names
    (whose SHA-256 must be the manifest's)."""
    patch, task = erratum.patch, get_task(erratum.task)
    with tempfile.TemporaryDirectory() as scratch:
        before = file_at(clone, V1_1, erratum.file.path, Path(scratch))
        if hashlib.sha256(before.read_bytes()).hexdigest() != erratum.file.sha256:
            raise KluebookError(f"{erratum.id}: the clone's v1.1 file is not the one named")
        after = file_at(clone, patch.ref, erratum.file.path, Path(scratch))
        old, new = task_module(task).read_official(before), task_module(task).read_official(after)
    changed_text = {edit.guid for edit in edits_between(old, new, patch.text)}
    edits = edits_between(old, new, (*patch.text, *patch.labels))
    if erratum.kind == "text":
        return [e for e in edits if e.guid in changed_text]
    return [e for e in edits if e.guid not in changed_text]


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        raise SystemExit("usage: python -m kluebook.errata.upstream CLONE_OF_KLUE")
    for erratum in manifest().errata:
        if erratum.patch is not None:
            edits = patch_edits(erratum, Path(argv[0]))
            write_edits(HERE / f"{erratum.id}.jsonl", edits)
            print(f"{erratum.id}: {len(edits)} edits of {len({e.guid for e in edits})} items")


if __name__ == "__main__":
    main(sys.argv[1:])
