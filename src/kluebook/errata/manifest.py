"""The errata manifest: one entry per known erratum of KLUE's data or metrics, under its own
version string, which every record that uses it carries.

An entry names its task and split, what kind of error it is (`nature`: a `bug`, the code does
not do what it says; a `naming` problem, the code does what its source does under a misleading
name; a `data` error), how it is measured (`kind`: `metric`, the official metric computes
something else than its name says, and `variants` name the value beside it; `label`: gold labels
are wrong, the text is not, so stored predictions can be rescored; `text`: the items themselves
change, so new predictions are needed), where it comes from upstream (an issue or pull request,
its commit), its upstream status and why it is an error. A data entry names the v1.1 file it
applies to by its SHA-256, and its edits (`edits.Edit`) sit beside it in `<id>.jsonl`. Both are
data files of this package, so a run that uses them fingerprints them with its code.
"""

from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kluebook.common.errors import KluebookError
from kluebook.errata.edits import Edit, read_edits

HERE = Path(__file__).parent
MANIFEST = HERE / "errata.yaml"
DATA_KINDS = ("label", "text")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(Strict):
    """Where an erratum was reported or fixed upstream (an issue or pull request), or, for one
    nobody has reported, the official code that has it (a file at a commit, and its line)."""

    repository: Literal["KLUE-benchmark/KLUE", "KLUE-benchmark/KLUE-baseline"]
    issue: int | None = None
    pull: int | None = None
    path: str | None = None
    line: int | None = None
    commit: str | None = Field(default=None, pattern=r"^[0-9a-f]{7,40}$")

    @model_validator(mode="after")
    def _named(self):
        if self.issue is None and self.pull is None and self.path is None:
            raise ValueError("a source names its issue, pull request or file")
        if self.path is not None and self.commit is None:
            raise ValueError("a source file is named at its commit")
        return self

    @property
    def url(self) -> str:
        base = f"https://github.com/{self.repository}"
        if self.pull is not None:
            return f"{base}/pull/{self.pull}"
        if self.issue is not None:
            return f"{base}/issues/{self.issue}"
        return f"{base}/blob/{self.commit}/{self.path}" + (f"#L{self.line}" if self.line else "")

    @property
    def label(self) -> str:
        name = self.repository.removeprefix("KLUE-benchmark/")
        if self.pull is not None:
            return f"{name} PR #{self.pull}"
        if self.issue is not None:
            return f"{name} issue #{self.issue}"
        return f"{name} {self.path}" + (f" line {self.line}" if self.line else "")


class DataFile(Strict):
    """The official v1.1 file an erratum's edits apply to, relative to `klue_benchmark/`, by its
    SHA-256 (or, for a pending erratum, its git blob id where no SHA-256 is known)."""

    path: str
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    git_blob: str | None = Field(default=None, pattern=r"^[0-9a-f]{40}$")

    @model_validator(mode="after")
    def _named(self):
        if self.sha256 is None and self.git_blob is None:
            raise ValueError("a data file is named by its sha256 (or its git blob id)")
        return self


class Patch(Strict):
    """Where a data erratum's fixed file is upstream (a commit or pull-request head of the KLUE
    repository) and which of its items the erratum takes: those whose `text` fields changed (a
    text erratum), or those whose `labels` fields alone changed (a label erratum)."""

    ref: str
    text: tuple[str, ...]
    labels: tuple[str, ...]


class Erratum(Strict):
    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    task: str
    split: Literal["train", "dev", "ontology"]  # ontology: a task's ontology file
    nature: Literal["bug", "naming", "data"]
    kind: Literal["metric", "label", "text"]
    title: str
    why: str
    source: Source
    status: str  # upstream, in words: "open", "merged in 1cc52e6", ...
    # Metric errata: each official metric key it corrects, and the corrected value's key.
    variants: dict[str, str] = {}
    file: DataFile | None = None  # data errata
    patch: Patch | None = None  # applied data errata: what their edits are built from
    # A data erratum whose edits are not in the manifest yet: why (it is then never applied).
    pending: str | None = None

    @model_validator(mode="after")
    def _complete(self):
        if (self.nature == "data") != (self.kind in DATA_KINDS):
            raise ValueError("a data erratum (label or text) is of nature data, and only it")
        if self.kind == "metric" and not self.variants:
            raise ValueError("a metric erratum names its variants (official key: corrected key)")
        if self.kind != "metric" and self.variants:
            raise ValueError("a data erratum is measured on the official metrics: no variants")
        if self.kind in DATA_KINDS and self.file is None:
            raise ValueError("a data erratum names the file it applies to")
        if self.kind == "metric" and self.pending:
            raise ValueError("a metric erratum is never pending: its variant is computed")
        if self.kind in DATA_KINDS and self.applied and self.file.sha256 is None:
            raise ValueError("an applied data erratum names its file's sha256")
        if self.kind in DATA_KINDS and self.applied and self.patch is None:
            raise ValueError("an applied data erratum names the upstream patch of its edits")
        return self

    @property
    def corrects(self) -> bool:
        """Whether its values are corrections (a bug or a data error), rather than an
        alternative statistic beside an official one that is what its source computes."""
        return self.nature != "naming"

    @property
    def applied(self) -> bool:
        """Whether the erratum is applied where it applies (its edits are in the manifest)."""
        return self.pending is None

    @property
    def edits(self) -> tuple[Edit, ...]:
        """A data erratum's edits (none for a metric erratum or a pending one)."""
        return _edits(self.id) if self.kind in DATA_KINDS and self.applied else ()


class Manifest(Strict):
    # A year and month (and a revision), never a number: `--set errata=2026-12` stays text.
    version: str = Field(pattern=r"^\d{4}-\d{2}(\.\d+)?$")
    errata: tuple[Erratum, ...]

    @model_validator(mode="after")
    def _unique(self):
        ids = [erratum.id for erratum in self.errata]
        if len(ids) != len(set(ids)):
            raise ValueError("two errata share an id")
        return self

    def of_task(self, task: str, kind: str | None = None) -> list[Erratum]:
        return [e for e in self.errata if e.task == task and kind in (None, e.kind)]


@cache
def _edits(erratum_id: str) -> tuple[Edit, ...]:
    path = HERE / f"{erratum_id}.jsonl"
    if not path.is_file():
        raise KluebookError(f"erratum {erratum_id}: its edits file {path.name} is missing")
    return tuple(read_edits(path))


def parse_manifest(path: Path) -> Manifest:
    """The manifest at `path`, validated: an unknown key, a missing field or a source without
    an issue or pull request is a one-line error."""
    try:
        return Manifest.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise KluebookError(f"{path.name}: {where}: {first['msg']}") from None


@cache
def manifest() -> Manifest:
    """The package's errata manifest."""
    return parse_manifest(MANIFEST)
