"""The plan of a command: the runs its options ask for (`Options`, `plan`), each checked before
any of them starts (its parameters, data and models: `check_parameters`, `preflight`) and
pinned to the hub commits it will run on (`pin_revisions`)."""

from dataclasses import dataclass, field
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.common.paths import ROOT
from kluebook.data.loading import data_dir_for, hub_dataset_revision
from kluebook.errata.manifest import manifest
from kluebook.methods.interface import ServedBy
from kluebook.methods.registry import DEFAULT_METHOD, method_named, runner_parameters
from kluebook.prompting.response_cache import check_response_cache
from kluebook.prompting.served_model import ask_served_model
from kluebook.running.run_matrix import default_data, load_matrix, parameter_grid
from kluebook.running.run_spec import RunSpec
from kluebook.tasks import Task, available_tasks, get_task
from kluebook.training.checkpoints import check_model
from kluebook.training.tiny_model import TINY_MODEL


@dataclass(frozen=True)
class Options:
    """What a command asks of the runner, parsed once: the run matrix (the profile's, or a
    sweep file's) and what narrows or overrides it (see `plan`)."""

    profile: str | None = "smoke"
    tasks: list[str] | None = None
    models: list[str] | None = None
    seeds: list[int] | None = None
    data_source: str | None = None
    data_dir: str | None = None
    extra: dict = field(default_factory=dict)
    matrix_path: Path | None = None
    model_revision: str = ""
    data_revision: str = ""
    # The server that answers a prompted matrix's runs (--base-url, and how it is asked);
    # None: the model runs here.
    server: ServedBy | None = None


def plan(profile: str | None = "smoke", **asked) -> list[RunSpec]:
    """`planned` runs of the `Options` named here (`profile`, then any other field by name)."""
    return planned(Options(profile, **asked))


def prepare(options: Options) -> list[RunSpec]:
    """The runs `options` ask for, checked and pinned (`preflight`): what a sweep executes."""
    return preflight(planned(options))


def planned(options: Options) -> list[RunSpec]:
    """The runs to execute, their revisions as asked: a run matrix (the profile's, or a sweep
    file's), narrowed or replaced by the options; `extra` overrides the matrix's parameters.
    `server`: the server that answers a prompted matrix's runs."""
    matrix = load_matrix(options.profile, options.matrix_path)
    profile = matrix["profile"]
    profile_data = default_data(profile)
    grid = parameter_grid({**(matrix.get("parameters") or {}), **(options.extra or {})})
    method = method_named(matrix.get("method", DEFAULT_METHOD))
    # The method's own fields of every run (a server: a method's whose runs a server answers).
    own = method.run_fields(options.server)
    models = options.models or matrix["models"]
    data_source = options.data_source or matrix.get("data_source") or profile_data[0]
    data_dir = str(options.data_dir or matrix.get("data_dir") or "")
    for model in models:
        check_model_name(model)
    specs = []
    for name in options.tasks or available_tasks():
        task = get_task(name)
        notebook = method.notebook(task)
        if not notebook.exists():
            raise KluebookError(f"task {name!r} has no notebook yet ({notebook.name})")
        for given in grid:
            overrides = check_parameters(task, given, models, profile, method.name)
            for model in models:
                for seed in options.seeds or matrix["seeds"]:
                    specs.append(
                        method.settings(
                            task=task,
                            model=model,
                            seed=int(seed),
                            profile=profile,
                            data_source=data_source,
                            data_dir=data_dir,
                            extra=overrides,
                            default_data=profile_data,
                            model_revision=options.model_revision,
                            data_revision=options.data_revision,
                            **own,
                        )
                    )
    return specs


def check_model_name(model: str) -> None:
    """A model named by a relative path stays inside the book root (a run links it into its
    scratch folder, and a local folder's files are hashed into its name); an absolute folder
    may be anywhere."""
    path = Path(model)
    if not path.is_absolute() and not (ROOT / path).resolve().is_relative_to(ROOT.resolve()):
        raise KluebookError(
            f"model {model!r}: a relative path that leads outside the book root; give the "
            "folder's absolute path"
        )


def check_parameters(
    task: Task, extra: dict, models=(TINY_MODEL,), profile="smoke", method=DEFAULT_METHOD
) -> dict:
    """The overrides `extra` typed by the method's model of the task (`Method.overrides`), in
    the order given; else one line: a parameter the runner sets, a name the model has not (a
    parameter the run's notebook does not declare that is not a recipe field), a value of the
    wrong type or range, or a combination the method refuses (a fine-tuned run's recipe, for
    any of the models in this profile; a prompted run's template)."""
    chosen = method_named(method)
    for name, value in extra.items():
        if name in runner_parameters():  # the notebooks' parameters set by the runner
            raise KluebookError(f"parameter {name!r} is set by the runner; use its own option")
        if name == "errata":  # any notebook: its dev items corrected by that errata version
            check_errata_version(value)
    typed = chosen.typed_overrides(task, extra)
    chosen.check_parameters(task, typed, models, profile)
    return typed


def check_errata_version(value) -> None:
    """`--set errata=<version>` names this kluebook's errata manifest, else a one-line error."""
    if value != manifest().version:
        raise KluebookError(
            f"errata={value!r}: this kluebook's errata manifest is version {manifest().version}"
        )


def preflight(specs: list[RunSpec]) -> list[RunSpec]:
    """Check data and models of every run before any of them starts; return the runs with their
    hub revisions resolved to commits (`pin_revisions`)."""
    if any(s.parameters().get("errata") and s.data_source != "official" for s in specs):
        raise KluebookError("errata correct the official files: --data-source official")
    if any(s.profile == "paper" and s.data_source == "generated" for s in specs):
        raise KluebookError("the paper profile needs real data: --data-source official or hub")
    for spec in specs:
        data_dir_for(spec.task, spec.data_source, spec.data_dir or None)
        if spec.data_revision and spec.data_source != "hub":
            raise KluebookError("--data-revision is for --data-source hub")
    local: dict[str, set[str]] = {}  # the models run here, by method
    for spec in specs:
        if spec.served_by is None:
            local.setdefault(spec.method, set()).add(spec.model)
    for method, models in local.items():
        method_named(method).check_local_models(models)
    return pin_revisions(specs)


def pin_revisions(specs: list[RunSpec]) -> list[RunSpec]:
    """Each run with its model and hub data revisions resolved to commits, once per model and
    per dataset config (HF_HUB_OFFLINE=1: looked up in the local caches); a model or dataset
    that cannot be found fails here, in one line, before any run. A model behind a server is
    the server's: it has no revision here."""
    if any(s.served_by and s.model_revision for s in specs):
        raise KluebookError("--model-revision is for models run here, not behind --base-url")
    models = {(s.model, s.model_revision) for s in specs if not s.served_by}
    model_commits = {pair: check_model(*pair) for pair in sorted(models)}
    configs = {(s.task.name, s.data_revision) for s in specs if s.data_source == "hub"}
    data_commits = {
        (name, revision): hub_dataset_revision(get_task(name), revision)
        for name, revision in sorted(configs)
    }
    pinned = [
        spec.but(
            model_revision=model_commits.get((spec.model, spec.model_revision), ""),
            data_revision=data_commits.get((spec.task.name, spec.data_revision), ""),
        )
        for spec in specs
    ]
    return ask_servers(pinned)


def ask_servers(specs: list[RunSpec]) -> list[RunSpec]:
    """Each run on a server with the identity the server reports for its model (its
    `/v1/models`, asked once per model): an input of the run, so another model served under
    the same name stales it. A server that does not answer, or a damaged response cache,
    fails here, in one line."""
    servers = dict.fromkeys((s.served_by, s.model) for s in specs if s.served_by)
    if servers:
        check_response_cache()
    served = {
        (server, model): ask_served_model(server.base_url, model, server.options).identity
        for server, model in servers
    }
    return [
        spec.with_served_model(served[server, spec.model]) if (server := spec.served_by) else spec
        for spec in specs
    ]
