"""An executed notebook made into its run's page in the book.

The page is the notebook as it ran, cleaned for a reader: its title names the run; its
parameters are a table (the parameter cells stay in the file, hidden); stderr, progress bars
and widget outputs are dropped and consecutive print-outs merged; no path of the machine that
ran it is left; a smoke run opens with a notice of what it is; a short card at the top says what
ran, on what and how it scored, and the full card at the end what it ran on and the command that
reproduces it.

The run step keeps the executed notebook, cleaned (`kept_notebook`), beside its record; every
`kluebook report` renders the page from the two (`render_page`), so a change to the page layout
or the card reaches every page without executing anything.
"""

import json
import shlex
from pathlib import Path

import nbformat
import papermill

from kluebook.book.myst import code, code_block, list_table, text
from kluebook.book.run_items import items_section
from kluebook.common.json_files import write_text_if_changed
from kluebook.common.paths import ROOT
from kluebook.methods.registry import DEFAULT_METHOD, method_named
from kluebook.recording import records
from kluebook.recording.kept_notebook import clean, display_path
from kluebook.recording.records import DEFAULT_CONFIG, RunRecord
from kluebook.results.aggregation import configuration_text, method_text, record_split, run_shots
from kluebook.results.calibration import calibration_text
from kluebook.results.degenerate import TRIVIAL, degenerate_reasons, shown
from kluebook.results.uncertainty import scores_text
from kluebook.tasks import Task
from kluebook.training import checkpoints
from kluebook.training.recipes import resolve_recipe


def _code(value) -> str:
    """A parameter value as Python would spell it, as inline code."""
    return code(
        json.dumps(display_path(value), ensure_ascii=False)
        if isinstance(value, str)
        else repr(value)
    )


def parameters_table(spec, record: RunRecord | None = None, notebook: Path | None = None) -> str:
    """This run's parameters beside the notebook's defaults and their help text: the value each
    had in the run, a recipe parameter left at None as the value its recipe resolved to.

    A run with a `record` shows what it holds (its parameters, its resolved recipe) and the
    defaults of the `notebook` it executed, so a stale run's page never shows today's."""
    declared = papermill.inspect_notebook(str(notebook or spec.source_notebook))
    if record is not None and record.outcome is not None:
        used, recipe = record.parameters, record.outcome.recipe
    else:
        used = spec.parameters()
        recipe_names = resolve_recipe(spec.task, spec.model, spec.profile, {}).as_dict()
        asked = {k: v for k, v in used.items() if k in recipe_names}
        recipe = resolve_recipe(spec.task, spec.model, spec.profile, asked).as_dict()
    rows = []
    for name, info in declared.items():
        default = info.get("default") or ""
        if name in used:
            shown = _code(used[name])
        elif name in recipe and default == "None":
            shown = f"{_code(recipe[name])} (the recipe's)"
        else:
            shown = f"`{default}`"
        if name in spec.extra:
            shown = f"**{shown}** (set with `--set`)"
        rows.append([f"`{name}`", shown, f"`{default}`" if default else "", info.get("help") or ""])
    header = ["parameter", "this run", "notebook default", "what it is"]
    return list_table(header, rows, [18, 30, 17, 35])


def setting_text(value) -> str:
    """A value as `--set name=value` reads it back: JSON, or plain text for a string that is
    not JSON."""
    if isinstance(value, str):
        try:
            json.loads(value)
        except json.JSONDecodeError:
            return value
    return json.dumps(value)


def rerun_command(spec) -> str:
    """The `kluebook run` command that executes this run again, under the same name."""
    # A prompted run's matrix is the profile's prompted one; a server is the reader's own.
    method = [*method_named(spec.method).rerun_options]
    method += ["--base-url", "URL"] if spec.served_by else []
    parts = ["kluebook", "run", "--profile", spec.profile, *method, "--tasks", spec.task.name]
    model = checkpoints.model_id(spec.model)
    if model != spec.model or "@" in model:  # a local checkpoint: its folder, wherever it is
        model = f"…/{model.split('@')[0]}"
    parts += ["--models", model, "--seeds", str(spec.seed)]
    default_source, default_dir = spec.default_data
    if spec.data_source != default_source:
        parts += ["--data-source", spec.data_source]
    if spec.data_dir and spec.data_dir != default_dir:
        parts += ["--data-dir", display_path(spec.data_dir)]
    for name, commit in spec.revisions.items():  # the hub commits the run was pinned to
        if commit:
            parts += [f"--{name.replace('_', '-')}", commit]
    for name, value in spec.extra.items():
        parts += ["--set", f"{name}={setting_text(value)}"]
    return " ".join(p if p.startswith("$") else shlex.quote(p) for p in parts)


def _number(value, unit: str = "", digits: int = 1) -> str:
    """A measured figure for display: a count as an integer, anything else rounded."""
    if value is None:
        return "not recorded"
    if isinstance(value, int):
        return f"{value:,}{unit}"
    return f"{value:,.{digits}f}{unit}"


def switches_text(spec, outcome: records.Outcome) -> str:
    """The switches this run left the official behaviour on, with the official values."""
    recipe = outcome.recipe
    official = resolve_recipe(spec.task, spec.model, "paper", {}).switches()
    changed = [
        f"`{name}` {text(recipe[name])} (official: {value})"
        for name, value in official.items()
        if name in recipe and recipe[name] != value
    ]
    changed += [text(deviation) for deviation in outcome.deviations]
    listed = "; ".join(changed) if changed else "none: the official behaviour throughout"
    return f"{listed} ({{ref}}`deviations`)"


def answering_text(outcome) -> str:
    """What answering a prompted run's dev items asked of its model and how fast (empty for a
    fine-tuned run, or a prompted run recorded before it was counted)."""
    usage = outcome.prompted.usage if outcome.prompted else None
    if usage is None:
        return ""
    speed = outcome.answering_tokens_per_second
    rate = f", {speed:,.0f} tokens/s" if speed is not None else ""
    uncounted = f" ({usage.uncounted:,} requests' tokens not reported)" if usage.uncounted else ""
    reused = usage.reused_prompt_tokens
    shared = f" ({reused:,} more reused: every prompt shares them)" if reused else ""
    return (
        f"answering: {usage.requests:,} requests ({usage.cache_hits:,} from the response "
        f"cache), {usage.prompt_tokens:,} prompt{shared} and {usage.completion_tokens:,} "
        f"completion tokens{uncounted} in {_number(outcome.answering_wall_time_s, ' s', 2)}{rate}"
    )


def card(spec, record: RunRecord) -> str:
    """The run card: what the run is, what it ran on, and how to run it again."""
    task, outcome = spec.task, record.outcome
    scores = scores_text(task, record)  # each metric with its 95% bootstrap interval
    best, last = outcome.best_checkpoint, outcome.last_checkpoint
    checkpoint = (
        f" (best dev checkpoint: step {best.step} of {last.step})"
        if best.step is not None and last.step is not None
        else ""
    )
    libraries = text(" · ".join(f"{k} {v}" for k, v in outcome.libraries.items()))
    counts = outcome.counts
    epochs = outcome.recipe.get("epochs")
    speed = outcome.train_examples_per_second
    throughput = answering_text(outcome) or (
        f"{speed:,.1f} training examples/s ({counts.get('train', 0):,} examples × {epochs} "
        f"epochs over {outcome.notebook_wall_time_s} s of notebook time, loading and "
        "evaluation included)"
        if speed is not None
        else "not recorded"
    )
    memory = _number(outcome.peak_memory_mb, " MB", 0)
    if outcome.peak_memory_mb is not None:
        memory += " resident (the notebook's kernel)"
    if outcome.peak_gpu_memory_mb is not None:
        memory += f"; {outcome.peak_gpu_memory_mb:,.0f} MB allocated on the GPU"
    commit = record.git_commit or "unknown"
    rows = [
        (
            "Task",
            f"{{ref}}`task-{task.name}` (its {{ref}}`methods page <methods-{task.name}>`)",
        ),
        ("Dev scores", f"{scores}{checkpoint}; in the {{doc}}`results table </book/results>`"),
        (
            "Model",
            f"{code(checkpoints.model_id(spec.model))}, revision {code(outcome.model_revision)}",
        ),
        ("Profile · seed", f"{text(spec.profile)} · {spec.seed}"),
        ("Configuration", code(spec.config) if spec.config else "the profile's recipe"),
        ("Switches off the official code", switches_text(spec, outcome)),
        (
            "Data",
            f"{text(record.data_source)}; "
            + ", ".join(f"{text(k)} {v:,}" for k, v in counts.items())
            + f"; checksum {code(outcome.data_checksum)}",
        ),
        ("Device", text(outcome.device)),
        (
            "Wall time",
            f"{_number(record.wall_time_s, ' s')} for the run, "
            f"{_number(outcome.notebook_wall_time_s, ' s')} in the notebook",
        ),
        ("Peak memory", memory),
        ("Throughput", throughput),
        ("Libraries", libraries or "not recorded"),
        ("Commit", code(commit)),
        ("Finished", text(record.finished_at)),
    ]
    return (
        "## Run card\n\n"
        f"{list_table([], [list(row) for row in rows], [20, 80])}\n"
        "This page again, from a checkout of the same commit:\n\n"
        f"{code_block(rerun_command(spec), 'bash')}"
    )


def summary_card(spec, record: RunRecord) -> str:
    """The short card at the top of a run page: model, profile, data and split, the dev scores,
    wall time and commit (the full card is at the end)."""
    metrics = record.outcome.metrics
    scores = ", ".join(
        f"{m.label} {metrics[m.key]:.2f}"
        for m in spec.task.metrics
        if metrics.get(m.key) is not None
    )
    dev = record.outcome.counts.get("dev")
    split = record_split(record)
    data = text(f"{spec.data_source} data, {split}") + (f", {dev:,} examples" if dev else "")
    wall = _number(record.wall_time_s, " s", 0)
    commit = code((record.git_commit or "unknown")[:12])
    rows = [
        ["Model", code(display_path(spec.model))],
        ["Profile", text(spec.profile)],
        *([["Method", prompted_text(record)]] if record.outcome.prompted else []),
        ["Data and split", data],
        ["Dev scores", scores or "—"],
        *trivial_rows(spec.task, record),
        *(
            [["Calibration", calibrated]]
            if (calibrated := calibration_text(spec.task, record))
            else []
        ),
        ["Wall time", wall],
        ["Commit", commit],
    ]
    return list_table([], rows, [20, 80])


def trivial_rows(task: Task, record: RunRecord) -> list[list[str]]:
    """A prompted run's card rows on its trivial predictors and degenerate answers (none for
    a fine-tuned run, or a prompted run recorded before they were)."""
    prompted = record.outcome.prompted
    if prompted is None or not prompted.baselines:
        return []
    trivial = "; ".join(
        f"{TRIVIAL[name]} {text(shown(baseline.answer))}: "
        + ", ".join(
            f"{m.label} {baseline.metrics[m.key]:.2f}"
            for m in task.metrics
            if baseline.metrics.get(m.key) is not None
        )
        for name, baseline in prompted.baselines.items()
    )
    reasons = degenerate_reasons(task, record)
    verdict = "**degenerate**: " + text("; ".join(reasons)) if reasons else "none found"
    return [["Trivial predictors", trivial], ["Degenerate answers", verdict]]


def prompted_text(record: RunRecord) -> str:
    """How a prompted run asked its model: its template, shots, their seed, the answer mode,
    what it could not read and what it could not ground."""
    prompted = record.outcome.prompted
    answered = "ranking" if prompted.mode == "rank" else "generation"
    items = record.outcome.counts.get("dev")
    of = f" of {items:,}" if items else ""
    ungrounded = (
        f"; {prompted.ungrounded:,}{of} parsed but not grounded in their item"
        if prompted.ungrounded is not None
        else ""
    )
    return (
        f"{method_text(record.method, prompted.shots)} with the template "
        f"{code(prompted.template)} (demonstrations drawn with seed "
        f"{prompted.demonstration_seed}), answered by {answered} ({{ref}}`prompting`); "
        f"{prompted.unparsable:,}{of} answers unparsable, scored as wrong{ungrounded}"
    )


def smoke_notice(method: str = DEFAULT_METHOD) -> str:
    """The admonition that opens a smoke run's page, in its method's words."""
    what = method_named(method).smoke_notice
    return (
        ":::{admonition} A smoke run: a pipeline check, not a KLUE result\n"
        ":class: warning\n"
        f"{what} Real numbers come from the "
        "`paper` profile: {doc}`Reproduce it yourself </book/reproduce>`.\n"
        ":::\n\n"
    )


def title(spec, record: RunRecord | None = None) -> str:
    """`<task title>: <model>, <profile>[, <configuration>], seed <N>`; a prompted run's
    configuration opens with its method and shots (`prompted, 5 shots`). Markdown: the names in
    it are text (`myst.text`)."""
    shots = run_shots(record) if record is not None else spec.extra.get("shots")
    named = configuration_text(spec.method, spec.config or DEFAULT_CONFIG, shots)
    config = f", {named}" if named else ""
    model = checkpoints.model_id(spec.model)
    return text(f"{spec.task.title}: {model}, {spec.profile}{config}, seed {spec.seed}")


def make_page(
    notebook,
    spec,
    record: RunRecord | None = None,
    stale: str = "",
    executed: Path | None = None,
    items: list | None = None,
):
    """Turn an executed notebook (in place, read from `executed`) into the run's page; return
    it. `stale` names the inputs that changed since the run, for a run whose numbers are no
    longer current; `items` are the cells of its dev items (`items_section`), before the card.
    The cells it adds have ids of their own, so a page is the same bytes at every rendering."""
    clean(notebook, spec)
    heading_index = next(
        (
            i
            for i, cell in enumerate(notebook.cells)
            if cell.cell_type == "markdown" and cell.source.startswith("# ")
        ),
        None,
    )
    if heading_index is None:
        notebook.cells.insert(0, nbformat.v4.new_markdown_cell("", id="run-title"))
        heading_index, rest = 0, ""
    else:
        _, _, rest = notebook.cells[heading_index].source.partition("\n")
    # The page opens with what a reader must know first: stale, smoke, and the summary card.
    opening = ""
    if stale:
        opening += (
            f":::{{warning}}\nStale: its {stale} changed since this run. Its numbers stay in "
            "the book, apart from those of current runs, until `kluebook run` executes it "
            "again.\n:::\n\n"
        )
    if spec.profile == "smoke":
        opening += smoke_notice(spec.method)
    if record is not None:
        opening += f"{summary_card(spec, record)}\n"
    notebook.cells[heading_index].source = f"# {title(spec, record)}\n\n{opening}{rest.lstrip()}"
    about = (
        f"This page is one executed run of the {{ref}}`{spec.task.title} <task-{spec.task.name}>` "
        f"notebook. Its scores are in the {{doc}}`results table </book/results>`; how the task is "
        f"trained and scored is on its {{ref}}`methods page <methods-{spec.task.name}>`.\n\n"
        f"**Parameters of this run**\n\n{parameters_table(spec, record, executed)}\n"
    )
    notebook.cells.insert(heading_index + 1, nbformat.v4.new_markdown_cell(about, id="run-about"))
    notebook.cells += items or []
    if record is not None:
        notebook.cells.append(nbformat.v4.new_markdown_cell(card(spec, record), id="run-card"))
    return notebook


def render_page(record: RunRecord, spec, root: Path = ROOT, stale: str = "") -> Path | None:
    """Write the page of a succeeded run (`spec`, the run its record names) from its record and
    kept executed notebook (see `make_page`); return its path, or None when the notebook is not
    there."""
    if not record.executed or not (root / record.executed).is_file():
        return None
    executed = root / record.executed
    notebook = nbformat.read(executed, as_version=4)
    page = root / record.notebook
    make_page(notebook, spec, record, stale, executed, items_section(spec.task, record, root))
    write_text_if_changed(page, nbformat.writes(notebook))
    return page
