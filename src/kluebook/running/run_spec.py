"""One run of a matrix (`RunSpec`): what identifies it, the notebook parameters it is given, the
files it leaves in the book root, what it is made from today (`spec_inputs`) and what is sent to
where it executes (`run_request`). A run's files are named here only: the one place the
runner's modules read the book's folders (results/, book/runs/, .cache/) from."""

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from kluebook.common.paths import CACHE, RESULTS, ROOT, RUNS, file_name
from kluebook.data.loading import data_checksum
from kluebook.methods.fine_tuned import FineTunedSettings
from kluebook.methods.interface import MethodSettings
from kluebook.methods.registry import method_named
from kluebook.recording import fingerprints, provenance, records
from kluebook.running.run_matrix import default_data
from kluebook.running.worker import RunRequest
from kluebook.tasks import Task, get_task
from kluebook.training import checkpoints


@dataclass(frozen=True)
class RunSpec:
    """One cell of the run matrix.

    A run is identified by task, profile, model, seed and everything else that can change its
    numbers: its parameter overrides and, where they differ from the profile's, its data source
    and data. Those are spelled out in `config`, which is part of its file names, so runs of
    different configurations never overwrite each other.
    """

    task: Task
    model: str
    seed: int
    profile: str
    data_source: str
    data_dir: str = ""
    extra: dict = field(default_factory=dict)
    default_data: tuple[str, str] = ("", "")
    # Hub revisions: as asked (a commit, tag or branch; "" for the current one), then resolved
    # to commits by `run_plan.pin_revisions`; only hub models and hub data have them.
    model_revision: str = ""
    data_revision: str = ""
    # How the run is made (`kluebook.methods`) and the settings that method gives its runs (a
    # prompted run's server, if one answers it); a fine-tuned run has none.
    settings: MethodSettings = field(default_factory=FineTunedSettings)
    # The configuration as a record names it (`spec_of`: it may name data that are not here).
    recorded_config: str | None = None

    @property
    def method(self) -> str:
        """The name of the run's method."""
        return self.settings.method_name

    @cached_property
    def config(self) -> str:
        """The configuration beyond model and seed, readable; "" for the profile's default.
        It opens with the words of its method's settings (a prompted run's `prompted`, then
        `server` where a server answers), so runs of two methods never share a name."""
        if self.recorded_config is not None:
            return self.recorded_config
        parts = self.settings.config_parts()
        parts += [f"{key}={value}" for key, value in sorted(self.extra.items())]
        if (self.data_source, self.data_dir) != self.default_data:
            parts.append(self.data_source)
            if self.data_source != "hub":
                checksum = data_checksum(self.task, self.data_source, self.data_dir or None)
                parts.append(f"data-{checksum[:8]}")
        return ",".join(parts).replace("/", "_").replace(" ", "_")

    @property
    def stem(self) -> str:
        """The run's file names: its model's (`model_slug`), configuration and seed, each of
        safe characters (`paths.file_name`), today's names unchanged."""
        config = f"-{file_name(self.config)}" if self.config else ""
        return f"{checkpoints.model_slug(self.model)}{config}-seed{self.seed}"

    @property
    def name(self) -> str:
        return f"{self.profile}-{self.stem}"

    @property
    def record_path(self) -> Path:
        """The record of the run's last success."""
        return RESULTS / self.profile / self.task.name / f"{self.stem}.json"

    @property
    def failure_path(self) -> Path:
        """The record of the run's last failure or interruption, if it came after its success."""
        return self.record_path.with_suffix(".failed.json")

    @property
    def executed_path(self) -> Path:
        """The executed notebook of the run's last success, the source of its page."""
        return self.record_path.with_suffix(".ipynb")

    @property
    def predictions_path(self) -> Path:
        """The dev predictions of the run's last success."""
        return self.record_path.with_suffix(".predictions.jsonl")

    @property
    def notebook_path(self) -> Path:
        return RUNS / self.task.name / f"{self.name}.ipynb"

    @property
    def source_notebook(self) -> Path:
        """The notebook the run executes: its task's, or the prompted one."""
        return fingerprints.method_notebook(self.task, self.method)

    @property
    def output_dir(self) -> Path:
        return CACHE / "outputs" / self.task.name / self.name

    @property
    def lock_path(self) -> Path:
        return CACHE / "locks" / self.task.name / f"{self.name}.lock"

    def parameters(self) -> dict:
        """The notebook parameters; paths inside the book root are relative to it."""
        return {
            "model": self.model,
            "profile": self.profile,
            "data_source": self.data_source,
            "data_dir": self.data_dir,
            "seed": self.seed,
            "output_dir": book_relative(self.output_dir),
            **self.settings.notebook_parameters(self.task.name),
            **{name: value for name, value in self.revisions.items() if value},
            **self.extra,
        }

    @property
    def revisions(self) -> dict:
        return {"model_revision": self.model_revision, "data_revision": self.data_revision}

    @property
    def checksum(self) -> str:
        """The data checksum of the run (hub data: the dataset and its commit)."""
        return data_checksum(self.task, self.data_source, self.data_dir or None, self.data_revision)


def book_relative(path: Path) -> str:
    """A path relative to the book root when it lies inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def spec_of(record: records.RunRecord) -> RunSpec:
    """The run a record was made by, its model named by id: to name its files and render its
    page without its data on this machine."""
    return RunSpec(
        task=get_task(record.task),
        model=record.model,
        seed=record.seed,
        profile=record.profile,
        data_source=record.data_source,
        data_dir=str(record.parameters.get("data_dir") or ""),
        extra=record.overrides,
        default_data=default_data(record.profile),
        model_revision=record.parameters.get("model_revision", ""),
        data_revision=record.parameters.get("data_revision", ""),
        settings=method_named(record.method).recorded_settings(record.parameters),
        recorded_config="" if record.is_default_config else record.config,
    )


def spec_inputs(spec: RunSpec, code: str | None = None) -> fingerprints.Inputs:
    """What a run is made from today (see `fingerprints.Inputs`)."""
    code = fingerprints.notebook_code(spec.source_notebook) if code is None else code
    checksum = spec.checksum
    parameters = provenance.portable_parameters(spec.parameters())
    return fingerprints.inputs(spec.task, code, parameters, checksum, spec.method)


class PreparedRun(NamedTuple):
    """A run ready to send: its request, and the inputs its record will carry."""

    request: RunRequest
    inputs: fingerprints.Inputs


def run_request(spec: RunSpec, log_output: bool = False) -> PreparedRun:
    """What is sent to where the run executes, and the inputs its record will carry."""
    text = spec.source_notebook.read_text(encoding="utf-8")
    code = fingerprints.cells_code(text)
    request = RunRequest(
        task=spec.task.name,
        name=spec.name,
        parameters=spec.parameters(),
        notebook=text,
        code_hash=fingerprints.run_code_hash(spec.task, spec.method),
        method=spec.method,
        data_checksum=spec.checksum,
        log_output=log_output,
    )
    return PreparedRun(request, spec_inputs(spec, code))
