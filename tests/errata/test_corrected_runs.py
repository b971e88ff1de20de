"""A run on the corrected dev items: asked for with `--set errata=<version>`, refused in one line
where the errata cannot apply, and loading the real file with every data erratum applied."""

import pytest

from kluebook.errata.manifest import manifest
from kluebook.notebook.steps import Run
from kluebook.recording.records import read_record
from kluebook.results.aggregation import record_split
from kluebook.tasks import get_task, task_module


def assert_one_line_error(result, fragment):
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], result.stderr


def test_errata_of_another_version_are_refused_before_any_run(kluebook, book_sources):
    result = kluebook(book_sources, "run", "--tasks", "ner", "--set", "errata=2020-01")
    assert_one_line_error(result, f"errata manifest is version {manifest().version}")


def test_errata_on_generated_data_are_refused_before_any_run(kluebook, book_sources):
    version = manifest().version
    result = kluebook(book_sources, "run", "--tasks", "ner", "--set", f"errata={version}")
    assert_one_line_error(result, "errata correct the official files: --data-source official")


def official_ner(klue_file, folder, train_size=2):
    """A folder in the official layout: the real NER dev file beside a generated train file."""
    task = get_task("ner")
    data = folder / "klue_benchmark"
    (data / "klue-ner-v1.1").mkdir(parents=True)
    (data / task.files["dev"]).symlink_to(klue_file(task.files["dev"]))
    train = task_module(task).generate(seed=1, train_size=train_size)["train"]
    task_module(task).write_official(train, data / task.files["train"])
    return data


@pytest.mark.realdata
def test_a_corrected_run_loads_the_dev_file_with_its_data_errata(klue_file, tmp_path):
    task = get_task("ner")
    data = official_ner(klue_file, tmp_path)
    parameters = {"data_source": "official", "data_revision": "", "dev_limit": 0}
    official = Run(
        task=task, parameters=parameters, recipe=None, data_dir=data, output_dir=tmp_path
    ).load("dev")
    with_errata = {**parameters, "errata": manifest().version}
    run = Run(task=task, parameters=with_errata, recipe=None, data_dir=data, output_dir=tmp_path)
    corrected = run.load("dev")
    assert run.errata_applied == ["ner-dev-labels", "ner-dev-text"]
    changed = {a["guid"] for a, b in zip(official, corrected, strict=True) if a != b}
    touched = {e.guid for erratum in manifest().of_task("ner", "label") for e in erratum.edits}
    touched |= {e.guid for erratum in manifest().of_task("ner", "text") for e in erratum.edits}
    assert changed == touched and len(changed) == 321


@pytest.mark.slow
@pytest.mark.realdata
def test_a_corrected_run_says_so_in_its_record(kluebook, scratch_book, klue_file, tmp_path):
    version = manifest().version
    data = official_ner(klue_file, tmp_path, train_size=100)
    result = kluebook(
        scratch_book, "run", "--tasks", "ner", "--seeds", "1", "--data-source", "official",
        "--data-dir", str(data), "--set", f"errata={version}", "--set", "dev_limit=60",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    (path,) = (scratch_book / "results" / "smoke" / "ner").glob("*errata*seed1.json")
    record = read_record(path)
    assert record.outcome.errata.version == version
    assert record.outcome.errata.applied == ["ner-dev-labels", "ner-dev-text"]
    assert "ner-dev-labels" not in record.outcome.errata.corrected  # already in its items
    assert set(record.outcome.errata.corrected) == {"ner-char-f1-o-tag"}
    assert record_split(record) == f"dev (KLUE v1.1, errata {version} applied)"
