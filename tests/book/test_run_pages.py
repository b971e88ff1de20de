"""Run pages and the generated task pages: an executed notebook made into a clean page that
ends with its run card, and a landing page per task with its runs under it in the contents."""

import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
import yaml
from conftest import valid_record

from kluebook.book import pages, registry_pages, run_pages
from kluebook.common.paths import ROOT, scrub
from kluebook.methods.fine_tuned import FineTunedRun
from kluebook.recording import kept_notebook, provenance, records
from kluebook.results import aggregation
from kluebook.running import run_plan
from kluebook.tasks import all_tasks, notebook_path


def spec(**extra):
    return run_plan.plan("smoke", tasks=["ynat"], seeds=[1], extra=extra)[0]


def executed_notebook():
    """A notebook as papermill leaves it: heading, parameter cells, noisy outputs."""
    noisy = nbformat.v4.new_code_cell("train()")
    noisy.outputs = [
        nbformat.v4.new_output("stream", name="stderr", text=f"{sys.prefix}/x.py: UserWarning\n"),
        nbformat.v4.new_output(
            "stream", name="stdout", text=" 50%|#####     | 5/10 [00:01<00:01]\n"
        ),
        nbformat.v4.new_output("stream", name="stdout", text="{'loss': 1.9}\n"),
        nbformat.v4.new_output("stream", name="stdout", text=f"saved to {ROOT}/.cache/x\n"),
        nbformat.v4.new_output(
            "display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": "1"}}
        ),
    ]
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# Topic classification (YNAT)\n\nAbout the task."),
            nbformat.v4.new_code_cell('model = "x"', metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell(
                f'# Parameters\ndata_dir = "{Path.home()}/klue"',
                metadata={"tags": ["injected-parameters"]},
            ),
            noisy,
        ]
    )
    notebook.metadata["papermill"] = {
        "input_path": str(ROOT / "notebooks/ynat.ipynb"),
        "output_path": "/tmp/executed.ipynb",
        "parameters": {"data_dir": str(Path.home() / "klue"), "seed": 1},
    }
    return notebook


RECORD_FIELDS = {
    "metrics": {"macro_f1": 81.234},
    "best_checkpoint": {"step": 8},
    "last_checkpoint": {"step": 60},
    "libraries": {"python": "3.11.7", "torch": "2.13.0"},
    "counts": {"train": 300, "dev": 100},
    "recipe": {"epochs": 6},
    "train_examples_per_second": 14.0,
    "notebook_wall_time_s": 128.4,
    "wall_time_s": 149.6,
    "peak_memory_mb": 812.3,
    "device": "cpu: x86_64, 2 threads",
    "data_source": "generated",
    "data_checksum": "744c3555",
    "git_commit": "83a966243d87",
    "model_revision": "built locally: tiny",
    "finished_at": "2026-01-02T03:04:05+00:00",
}
RECORD = valid_record(RECORD_FIELDS)


def record_of(run, **fields):
    """A record of the run `run` (its parameters and configuration), holding RECORD_FIELDS."""
    made = {
        "parameters": provenance.portable_parameters(run.parameters()),
        "overrides": run.extra,
        "config": run.config or records.DEFAULT_CONFIG,
    }
    return valid_record({**RECORD_FIELDS, **made, **fields})


def test_a_run_page_is_titled_and_clean_and_has_no_path_of_the_machine():
    run = spec(train_limit=300)
    page = run_pages.make_page(executed_notebook(), run, record_of(run))
    title = page.cells[0].source.splitlines()[0]
    assert (
        title
        == "# Topic classification (YNAT): kluebook/tiny-roberta, smoke, train_limit=300, seed 1"
    )
    about = page.cells[1].source
    assert "{ref}`Topic classification (YNAT) <task-ynat>`" in about
    assert "* - `train_limit`\n  - **`300`** (set with `--set`)\n  - `0`\n" in about
    assert all("remove-cell" in page.cells[i].metadata["tags"] for i in (2, 3))
    (stream,) = page.cells[4].outputs  # stderr, progress bar and widget state dropped, merged
    assert stream.text == "{'loss': 1.9}\nsaved to .cache/x\n"
    text = nbformat.writes(page)
    assert str(ROOT) not in text and sys.prefix not in text and str(Path.home()) not in text
    assert page.metadata.papermill.input_path == "notebooks/ynat.ipynb"
    nbformat.validate(page)


def test_a_run_page_ends_with_its_card_and_the_command_that_reproduces_it():
    run = spec(train_limit=300, learning_rate=0.002)
    card = run_pages.make_page(executed_notebook(), run, record_of(run)).cells[-1].source
    assert card.startswith("## Run card")
    for expected in (
        "* - Dev scores\n  - Macro F1 81.23 (best dev checkpoint: step 8 of 60)",
        "* - Device\n  - cpu: x86_64, 2 threads\n",
        "  - 149.6 s for the run, 128.4 s in the notebook\n",
        "  - 812 MB resident",
        "  - 14.0 training examples/s (300 examples × 6 epochs",
        "checksum `744c3555`",
        "* - Commit\n  - `83a966243d87`\n",
        "revision `built locally: tiny`",
        "python 3.11.7 · torch 2.13.0",
    ):
        assert expected in card, expected
    command = card.split("```bash\n")[1].split("\n```")[0]
    assert command == (
        "kluebook run --profile smoke --tasks ynat --models kluebook/tiny-roberta --seeds 1 "
        "--set train_limit=300 --set learning_rate=0.002"
    )
    assert (
        run_plan.plan(
            "smoke", tasks=["ynat"], seeds=[1], extra={"train_limit": 300, "learning_rate": 0.002}
        )[0].name
        == run.name
    )  # the command's run has the page's name


def test_a_smoke_run_page_opens_with_a_notice_and_a_summary_card():
    page = run_pages.make_page(executed_notebook(), spec(), RECORD).cells
    heading, _, opening = page[0].source.partition("\n\n")
    assert heading == "# Topic classification (YNAT): kluebook/tiny-roberta, smoke, seed 1"
    notice, _, rest = opening.partition(":::\n\n")
    assert notice.startswith(":::{admonition} A smoke run: a pipeline check, not a KLUE result")
    assert ":class: warning" in notice and "randomly initialised" in notice
    summary, _, intro = rest.partition("```\n\n")
    assert intro == "About the task."  # the task's own opening follows the card
    assert page[1].source.startswith("This page is one executed run")
    for expected in (
        "* - Model\n  - `kluebook/tiny-roberta`",
        "* - Profile\n  - smoke",
        "* - Data and split\n  - generated data, dev (generated), 100 examples",
        "* - Dev scores\n  - Macro F1 81.23",
        "* - Wall time\n  - 150 s",
        "* - Commit\n  - `83a966243d87`",
    ):
        assert expected in summary, expected
    paper = run_plan.plan("paper", tasks=["ynat"], seeds=[1], models=["klue/roberta-base"])
    assert "A smoke run" not in run_pages.make_page(executed_notebook(), paper[0]).cells[0].source


def test_the_parameters_table_shows_every_value_the_run_used_at_full_precision():
    table = run_pages.parameters_table(spec(warmup_ratio=1.25e-05, train_limit=300))
    rows = dict(
        (row[0], row[1]) for row in (item.split("\n  - ") for item in table.split("\n* - ")[1:])
    )
    assert "(the default)" not in table
    assert rows["`learning_rate`"] == "`0.001` (the recipe's)"  # None in the notebook
    assert rows["`epochs`"] == "`5` (the recipe's)"  # a count, as an integer
    assert rows["`warmup_ratio`"] == "**`1.25e-05`** (set with `--set`)"
    assert rows["`dev_limit`"] == "`0`"  # the notebook's default, as it was used
    assert rows["`train_limit`"] == "**`300`** (set with `--set`)"


# Where a machine may have its home folder, the temporary folder being TEMPORARY (its usual
# name, which a home folder may hold too, as ~/tmp): inside the temporary folder (a CI
# container's fresh HOME), inside the checkout, around the checkout (the usual clone under ~),
# or elsewhere; and what the text `<home>fs`, a folder beside the home folder, is then: a path
# of the temporary folder, of the book root, or of neither.
TEMPORARY = "/tmp"
HOMES = {
    "in the temporary folder": (f"{TEMPORARY}/tmp.X/home", "<tmp>/tmp.X/homefs"),
    "in the checkout": (f"{ROOT}/home", "homefs"),
    "around the checkout": (str(ROOT.parent), f"{ROOT.parent}fs"),
    "elsewhere": ("/kluebook-test-homes/someone", "/kluebook-test-homes/someonefs"),
}


@pytest.mark.parametrize("placement", HOMES)
def test_display_paths_are_relative_or_without_the_machines_folders(monkeypatch, placement):
    home, beside_home = HOMES[placement]
    if home in ("/", TEMPORARY):
        pytest.skip(f"the checkout is a folder of {home}: no home folder around it")
    monkeypatch.setenv("HOME", home)
    monkeypatch.setattr(tempfile, "tempdir", TEMPORARY)
    assert str(Path.home()) == home and tempfile.gettempdir() == TEMPORARY
    shown = kept_notebook.display_path
    assert shown(str(ROOT / "data" / "klue")) == "data/klue"
    assert shown(f"{home}/klue") == "~/klue"
    assert shown(f"{home}/tmp/klue") == "~/tmp/klue"  # never read again once ~ stands there
    assert shown(f"{TEMPORARY}/kluebook-run-1/klue") == "<tmp>/kluebook-run-1/klue"
    assert shown("/somewhere/else/klue") == "…/klue"
    assert shown("relative/path") == "relative/path"
    text = f"{home}/a {home}fs {home} {home}/tmp/b {TEMPORARY}/c {ROOT}/d:{ROOT}"
    assert scrub(text) == f"~/a {beside_home} ~ ~/tmp/b <tmp>/c d:."


def test_each_task_has_a_landing_page_and_its_runs_sit_under_it_in_the_contents(tmp_path):
    shutil.copy(ROOT / "_toc.yml", tmp_path / "_toc.yml")
    folder = tmp_path / "book" / "runs" / "ynat"
    folder.mkdir(parents=True)
    runs = []
    for seed in (2, 1):
        name = f"smoke-kluebook--tiny-roberta-seed{seed}"
        (folder / f"{name}.ipynb").write_text("{}")
        fields = {"seed": seed, "metrics": {"macro_f1": 70.0 + seed}, "wall_time_s": 10.0}
        runs.append(valid_record({**fields, "notebook": f"book/runs/ynat/{name}.ipynb"}))
    runs.append(valid_record({"seed": 3, "status": "failed", "error": "OSError: gone"}))
    stopped = {"seed": 4, "status": "interrupted", "error": "interrupted (Ctrl-C)"}
    runs.append(valid_record(stopped))
    tasks = list(all_tasks().values())
    toc = pages.table_of_contents(tasks, runs, root=tmp_path)
    part = next(p for p in toc["parts"] if p["caption"] == "Tasks and their runs")
    assert [c["file"] for c in part["chapters"]] == [
        f"book/_generated/tasks/{t}" for t in all_tasks()
    ]
    ynat = part["chapters"][0]
    assert ynat["sections"] == [
        {
            "file": f"book/runs/ynat/smoke-kluebook--tiny-roberta-seed{s}",
            "title": f"kluebook/tiny-roberta, smoke, seed {s}",
        }
        for s in (1, 2)
    ]
    methods = toc["parts"][0]["chapters"][1]["sections"]
    assert [m["file"] for m in methods] == [f"book/_generated/methods/{t}" for t in all_tasks()]
    rows = aggregation.reproduced_rows(runs, tmp_path)
    landing = pages.landing_page(tasks[0], runs, rows, [], root=tmp_path)
    assert landing.startswith("(task-ynat)=\n# Topic classification (YNAT) — results and runs\n")
    methods_page = registry_pages.methods_page(tasks[0])
    assert methods_page.startswith("(methods-ynat)=\n# Topic classification (YNAT) — method\n")
    assert "{ref}`methods page <methods-ynat>`" in landing
    assert "### kluebook/tiny-roberta\n\n*smoke profile, the profile's recipe*" in landing
    assert "- [seed 1](/book/runs/ynat/smoke-kluebook--tiny-roberta-seed1): Macro F1 71.00" in (
        landing
    )
    assert "- seed 3: **failed**, OSError: gone" in landing
    assert "- seed 4: **interrupted**, interrupted (Ctrl-C)" in landing
    assert (
        'href="../../runs/ynat/smoke-kluebook--tiny-roberta-seed1.html#items"' in landing
    )  # its items
    assert yaml.safe_dump(toc)  # the build reads it back as YAML
    assert (
        "Results and executed runs of this task: {ref}`task-ynat`"
        in registry_pages.methods_page(tasks[0])
    )


def test_the_card_names_each_switch_off_the_official_code_with_its_official_value():
    from kluebook.training.recipes import resolve_recipe

    run = spec()
    smoke = resolve_recipe(run.task, run.model, "smoke", {"bf16": True}).as_dict()
    deviations = ["bf16 autocast instead of fp32"]
    record = valid_record({**RECORD_FIELDS, "recipe": smoke, "deviations": deviations})
    card = run_pages.make_page(executed_notebook(), run, record).cells[-1].source
    row = card.split("* - Switches off the official code\n  - ")[1].split("\n")[0]
    assert "`eval_schedule` trainer (official: lightning)" in row
    assert "`optimizer` adamw_torch (official: adamw_transformers3)" in row
    assert "bf16 autocast instead of fp32" in row and "{ref}`deviations`" in row
    paper = resolve_recipe(run.task, "klue/roberta-base", "paper", {}).as_dict()
    official = run_pages.switches_text(
        FineTunedRun(
            task=run.task,
            model="klue/roberta-base",
            seed=42,
            profile="paper",
            data_source="official",
        ),
        records.Outcome(model_revision="r", recipe=paper, metrics={}, data_checksum="d"),
    )
    assert official.startswith("none: the official behaviour throughout")


def test_each_landing_page_opens_with_the_korean_summary_and_the_english_one():
    for task in all_tasks().values():
        opening = pages.card_summary(task)
        korean, english = opening.split("\n:::\n\n")
        assert korean.startswith(":::{container} language-ko\n**요약.**"), task.name
        assert english and not english.startswith((":::", "#")), task.name


def test_a_page_without_a_readable_record_is_listed_apart_with_the_reason(tmp_path):
    folder = tmp_path / "book" / "runs" / "ynat"
    folder.mkdir(parents=True)
    (folder / "smoke-kluebook--tiny-roberta-seed1.ipynb").write_text("{}")
    task = all_tasks()["ynat"]
    landing = pages.landing_page(task, [], aggregation.reproduced_rows([], tmp_path), [], tmp_path)
    assert "*pages whose record is missing or unreadable: their numbers are in no table" in landing
    assert "{doc}`status page </book/status>`" in landing
    assert "- [smoke-kluebook--tiny-roberta-seed1](/book/runs/ynat/" in landing


def test_a_stale_runs_page_shows_the_values_its_record_holds_not_todays(tmp_path):
    """A run made by an older notebook and recipe: its page shows the notebook defaults it ran
    with (its kept notebook) and the recipe values its record holds, while today's differ."""
    run = spec()
    executed = nbformat.read(notebook_path(run.task), as_version=4)
    cell = next(c for c in executed.cells if "parameters" in c.metadata.get("tags", []))
    assert "dev_limit: int = 0  #" in cell.source  # today's default
    cell.source = cell.source.replace("dev_limit: int = 0  #", "dev_limit: int = 7  #")
    kept = tmp_path / "results/smoke/ynat/kluebook--tiny-roberta-seed1.ipynb"
    kept.parent.mkdir(parents=True)
    nbformat.write(executed, kept)
    today = run_pages.resolve_recipe(run.task, run.model, "smoke", {}).as_dict()
    recipe = {**today, "learning_rate": 0.005, "epochs": 9}
    assert (today["learning_rate"], today["epochs"]) != (0.005, 9)
    page_file = "book/runs/ynat/smoke-kluebook--tiny-roberta-seed1.ipynb"
    fields = {"recipe": recipe, "executed": kept.relative_to(tmp_path).as_posix()}
    record = record_of(run, notebook=page_file, **fields)
    page = run_pages.render_page(record, run, tmp_path, stale="notebook")
    assert page == tmp_path / page_file
    cells = nbformat.read(page, as_version=4).cells
    at = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source[:2] == "# ")
    assert "Stale: its notebook changed since this run" in cells[at].source
    table = cells[at + 1].source  # the parameters of this run
    rows = dict((row[0], row[1:]) for row in (i.split("\n  - ") for i in table.split("\n* - ")[1:]))
    assert rows["`learning_rate`"][0] == "`0.005` (the recipe's)"
    assert rows["`epochs`"][0] == "`9` (the recipe's)"
    assert rows["`dev_limit`"][:2] == ["`7`", "`7`"]  # the default it ran with, not today's 0
    assert "300 examples × 9 epochs" in cells[-1].source  # the card: the record's recipe
