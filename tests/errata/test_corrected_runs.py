"""A run on the corrected dev items: asked for with `--set errata=<version>`, refused in one line
where the errata cannot apply, and loading the real file with every data erratum applied."""

import pytest

from kluebook.errata.manifest import manifest
from kluebook.notebook.steps import Run
from kluebook.tasks import get_task


def assert_one_line_error(result, fragment):
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], result.stderr


def test_errata_of_another_version_are_refused_before_any_run(kluebook, book_sources):
    result = kluebook(book_sources, "run", "--tasks", "ner", "--set", "errata=2020.01")
    assert_one_line_error(result, f"errata manifest is version {manifest().version}")


def test_errata_on_generated_data_are_refused_before_any_run(kluebook, book_sources):
    version = manifest().version
    result = kluebook(book_sources, "run", "--tasks", "ner", "--set", f"errata={version}")
    assert_one_line_error(result, "errata correct the official files: --data-source official")


@pytest.mark.realdata
def test_a_corrected_run_loads_the_dev_file_with_its_data_errata(klue_file, tmp_path):
    task = get_task("ner")
    data = tmp_path / "klue_benchmark"  # the real dev file beside a generated train file
    (data / "klue-ner-v1.1").mkdir(parents=True)
    (data / task.files["dev"]).symlink_to(klue_file(task.files["dev"]))
    train = task.module.generate(seed=1, train_size=2)["train"]
    task.module.write_official(train, data / task.files["train"])
    parameters = {"data_source": "official", "data_revision": "", "dev_limit": 0}
    official = Run(task, parameters, None, data, tmp_path).load("dev")
    run = Run(task, {**parameters, "errata": manifest().version}, None, data, tmp_path)
    corrected = run.load("dev")
    assert run.errata_applied == ["ner-dev-labels", "ner-dev-text"]
    changed = {a["guid"] for a, b in zip(official, corrected, strict=True) if a != b}
    touched = {e.guid for erratum in manifest().of_task("ner", "label") for e in erratum.edits}
    touched |= {e.guid for erratum in manifest().of_task("ner", "text") for e in erratum.edits}
    assert changed == touched and len(changed) == 321
