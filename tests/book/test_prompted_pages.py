"""What the book's generated pages say of prompted runs: their rows are labelled `prompted, k
shots` and sit in blocks of their own (a smoke block said to be one), never ranked; the task
pages list them with their intervals and unparsable answers; their run pages say how they were
made; and every task's methods page says how the task is prompted, read from its template."""

import re
import shutil

import yaml
from conftest import valid_record

from kluebook.book import pages, registry_pages, results_page, run_pages
from kluebook.book.klue_table import sections_for, table_html
from kluebook.common.paths import CONFIGS
from kluebook.methods.prompted import template_digest
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.recording import fingerprints
from kluebook.results import aggregation
from kluebook.running import run_plan
from kluebook.tasks import EXTRA_TASKS_VARIABLE, all_tasks, get_task
from kluebook.tasks.prompt_items import template_names

NLI = get_task("nli")
PROMPTED = "prompted,dev_limit=20,shots=5"


def prompted_record(accuracy: float, profile="smoke", seed=1, shots=5, config=PROMPTED, **fields):
    """A prompted NLI run's record as the prompted notebook leaves it."""
    parameters = {
        "model": "kluebook/tiny-qwen3",
        "profile": profile,
        "data_source": "generated",
        "data_dir": "",
        "seed": seed,
        "output_dir": ".cache/outputs",
        "task": "nli",
        "dev_limit": 20,
        "shots": shots,
    }
    inputs = {
        **fingerprints.current_code(NLI, "prompted"),
        "parameters": fingerprints.text_digest(str(parameters)),
        "data": "generated-data",
    }
    return valid_record(
        {
            "task": "nli",
            "model": "kluebook/tiny-qwen3",
            "profile": profile,
            "seed": seed,
            "method": "prompted",
            "config": config,
            "parameters": parameters,
            "inputs": inputs,
            "metrics": {"accuracy": accuracy},
            "intervals": {"accuracy": {"low": accuracy - 20.0, "high": accuracy + 20.0}},
            "counts": {"train": 800, "dev": 20},
            "recipe": {"shots": shots, "mode": "rank", "max_new_tokens": 8},
            "prompted": {
                "shots": shots,
                "demonstration_seed": seed,
                "mode": "rank",
                "template_digest": template_digest(NLI),
                "unparsable": 0,
                "backend": {"model": "kluebook/tiny-qwen3"},
                "first_prompt": "전제: …",
                "first_answer": "참",
                "first_parsed": {"guid": "nli-0", "label": "entailment"},
            },
            **fields,
        }
    )


def fine_tuned_record(accuracy: float, profile="smoke", model="kluebook/tiny-roberta"):
    return valid_record(
        {
            "task": "nli",
            "model": model,
            "profile": profile,
            "metrics": {"accuracy": accuracy},
            **({"data_source": "official"} if profile == "paper" else {}),
        }
    )


def block(html: str, kind: str) -> str:
    """The rows of the table's block (tbody) of class `kind`."""
    return html.split(f'<tbody class="{kind}">')[1].split("</tbody>")[0]


def test_a_prompted_row_says_prompted_and_its_shots_in_a_block_of_its_own(tmp_path):
    runs = [
        fine_tuned_record(70.0),
        prompted_record(35.0),
        prompted_record(30.0, shots=0, config="prompted,dev_limit=20,shots=0"),
    ]
    rows = aggregation.reproduced_rows(runs, tmp_path)
    assert {(r.method, r.shots) for r in rows} == {
        ("fine-tuned", None),
        ("prompted", 0),
        ("prompted", 5),
    }
    html = table_html(sections_for(rows, []), [NLI], "book/results")
    smoke = block(html, "pipeline-check")
    assert "tiny-roberta" in smoke and "tiny-qwen3" not in smoke
    prompted = block(html, "prompted-pipeline-check")
    assert "a tiny randomly initialised causal LM prompted on generated data, not a result" in (
        prompted
    )
    heads = re.findall(r'<th class="model" scope="row">(.*?)</th>', prompted)
    assert len(heads) == 2
    assert all("tiny · dev (generated)" in head for head in heads)  # a registered stand-in
    assert [re.findall(r'<span class="config">([^<]*)</span>', h)[1] for h in heads] == [
        "prompted, 0 shots, dev_limit=20",
        "prompted, 5 shots, dev_limit=20",
    ]
    assert "95% bootstrap interval 15.00–55.00 (resampling the dev set)" in prompted
    assert "<strong>" not in prompted


def test_a_paper_prompted_row_is_never_ranked_with_the_fine_tuned_rows(tmp_path):
    runs = [
        fine_tuned_record(70.0, "paper", "klue/roberta-base"),
        fine_tuned_record(72.0, "paper", "klue/roberta-large"),
        prompted_record(95.0, "paper"),
    ]
    runs[2] = runs[2].model_copy(update={"data_source": "official"})
    html = table_html(sections_for(aggregation.reproduced_rows(runs, tmp_path), []), [NLI], "p")
    fine_tuned = block(html, "reproduced")
    assert "<strong>72.00</strong>" in fine_tuned and "95.00" not in fine_tuned
    prompted = block(html, "prompted")
    assert "never ranked against the fine-tuned rows" in prompted
    assert "95.00" in prompted and "<strong>" not in prompted
    assert "prompted, 5 shots, dev_limit=20" in prompted


def test_the_front_page_says_a_prompted_smoke_build_is_a_pipeline_check(tmp_path):
    text = results_page.build_contents([fine_tuned_record(70.0), prompted_record(35.0)], tmp_path)
    assert "**smoke** runs of `kluebook/tiny-roberta` on dev (generated), 1 seed" in text
    assert (
        "**smoke** prompted runs of `kluebook/tiny-qwen3` (prompted, 5 shots, dev_limit=20) on "
        "dev (generated), 1 seed (a tiny randomly initialised causal LM prompted on generated "
        "data: a pipeline check, not a KLUE result)"
    ) in text


def test_the_task_page_lists_prompted_runs_with_their_shots_intervals_and_unparsable(tmp_path):
    shutil.copy(pages.ROOT / "_toc.yml", tmp_path / "_toc.yml")
    folder = tmp_path / "book" / "runs" / "nli"
    folder.mkdir(parents=True)
    name = f"smoke-kluebook--tiny-qwen3-{PROMPTED}-seed1"
    (folder / f"{name}.ipynb").write_text("{}")
    record = prompted_record(35.0, notebook=f"book/runs/nli/{name}.ipynb")
    rows = aggregation.reproduced_rows([record], tmp_path)
    landing = pages.landing_page(NLI, [record], rows, [], root=tmp_path)
    assert "### kluebook/tiny-qwen3 (prompted, 5 shots, dev_limit=20)\n\n*smoke profile*" in landing
    assert (
        f"- [seed 1](/book/runs/nli/{name}): Accuracy 35.00 (95% CI 15.00–55.00); 0 unparsable"
    ) in landing
    toc = pages.table_of_contents([NLI], [record], root=tmp_path)
    part = next(p for p in toc["parts"] if p["caption"] == "Tasks and their runs")
    assert part["chapters"][0]["sections"] == [
        {
            "file": f"book/runs/nli/{name}",
            "title": "kluebook/tiny-qwen3, smoke, prompted, 5 shots, dev_limit=20, seed 1",
        }
    ]


def test_a_prompted_smoke_run_page_says_how_it_was_made():
    sweep = CONFIGS / "sweeps" / "prompted-smoke.yaml"
    (spec,) = run_plan.plan(tasks=["nli"], seeds=[1], extra={"shots": 5}, matrix_path=sweep)
    assert spec.config == PROMPTED
    record = prompted_record(35.0)
    heading = (
        run_pages.make_page(
            run_pages.nbformat.v4.new_notebook(
                cells=[run_pages.nbformat.v4.new_markdown_cell("# Prompted evaluation\n\nText.")]
            ),
            spec,
            record,
        )
        .cells[0]
        .source
    )
    assert heading.startswith(
        "# Natural language inference (NLI): kluebook/tiny-qwen3, smoke, prompted, 5 shots, "
        "dev_limit=20, seed 1\n"
    )
    assert "This run prompted a tiny randomly initialised causal LM" in heading
    assert "fine-tuned" not in heading
    assert (
        "* - Method\n  - prompted, 5 shots with the template `standard` (demonstrations drawn "
        "with seed 1), answered by ranking ({ref}`prompting`); 0 of 20 answers unparsable, "
        "scored as wrong"
    ) in heading


def test_every_methods_page_says_how_its_task_is_prompted_from_its_template():
    for task in all_tasks().values():
        template = task_template(task.name)
        prompting = task_prompting(task.name)
        page = registry_pages.methods_page(task)
        section = page.split(f"(methods-{task.name}-prompted)=\n## Prompted evaluation\n")[1]
        section = section.split("\n## ")[0]
        assert "{ref}`Prompting KLUE <prompting>`" in section
        assert template.instruction.strip() in section and template.answer_format.strip() in section
        mode = "ranking" if template.mode == "rank" else "generation"
        assert f"**Answer mode: {mode}.**" in section, task.name
        if template.mode == "generate":
            assert f"up to {template.max_new_tokens} new tokens" in section
        fallback = " ".join(prompting.fallback_prediction.__doc__.split())
        assert fallback[1:] in section, task.name
        assert f"--method prompted --tasks {task.name}`" in section
        for name in template_names(task.folder):  # the family, one row each
            assert f"| `{name}` | " in section, (task.name, name)
        corrections = "also scores contextual calibration and PMI scoring, as corrections"
        assert (corrections in section) == bool(template.corrections), task.name


def test_a_methods_page_follows_the_template_it_is_read_from(tmp_path, monkeypatch):
    monkeypatch.setenv(EXTRA_TASKS_VARIABLE, str(tmp_path))
    for name, change in (
        ("nligenerated", {"mode": "generate", "max_new_tokens": 77}),
        ("nliunprompted", None),
    ):
        folder = tmp_path / name
        shutil.copytree(NLI.folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
        if change is None:
            shutil.rmtree(folder / "prompts")
            continue
        for template in (folder / "prompts").glob("*.yaml"):
            entry = yaml.safe_load(template.read_text(encoding="utf-8"))
            template.write_text(yaml.safe_dump({**entry, **change}, allow_unicode=True))
    generated = registry_pages.methods_page(get_task("nligenerated"))
    assert "**Answer mode: generation.** The model writes greedily, up to 77 new tokens" in (
        generated
    )
    assert "Answer mode: ranking" not in generated
    unprompted = registry_pages.methods_page(get_task("nliunprompted"))
    assert "This task has no prompt template (`prompts/` in its folder)" in unprompted
    assert "Answer mode" not in unprompted
