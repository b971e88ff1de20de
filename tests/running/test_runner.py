"""Planning and checking runs: bad input fails before any notebook starts."""

import dataclasses
import shutil
from pathlib import Path

import pytest
from conftest import valid_record

from kluebook.common.errors import KluebookError
from kluebook.common.paths import CONFIGS
from kluebook.data.loading import data_dir_for
from kluebook.methods import interface as method_interface
from kluebook.recording import fingerprints, records
from kluebook.running import run_plan, run_spec, run_store, runner
from kluebook.tasks import get_task, notebook_path
from kluebook.training import fine_tuning


def test_smoke_matrix_plans_two_seeds_of_the_tiny_model():
    specs = run_plan.plan("smoke", tasks=["ynat"])
    assert [(s.model, s.seed, s.data_source) for s in specs] == [
        ("kluebook/tiny-roberta", 1, "generated"),
        ("kluebook/tiny-roberta", 2, "generated"),
    ]
    assert specs[0].record_path.name == "kluebook--tiny-roberta-seed1.json"
    assert specs[0].notebook_path.parent.name == "ynat"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tasks": ["topics"]}, "unknown task 'topics'"),
        ({"tasks": ["ynat"], "extra": {"learning_rat": 1e-3}}, "unknown parameter 'learning_rat'"),
        ({"tasks": ["ynat"], "extra": {"seed": 3}}, "parameter 'seed' is set by the runner"),
    ],
)
def test_bad_plans_are_rejected(kwargs, message):
    with pytest.raises(KluebookError, match=message):
        run_plan.plan("smoke", **kwargs)


def test_unknown_profile_is_rejected():
    with pytest.raises(KluebookError, match="unknown profile 'fast'"):
        run_plan.plan("fast")


def test_preflight_rejects_a_data_dir_without_the_files(tmp_path):
    specs = run_plan.plan("smoke", tasks=["ynat"], data_source="official", data_dir=str(tmp_path))
    expected = r"lacks the ynat files: ynat-v1\.1/ynat-v1\.1_train\.json"
    with pytest.raises(KluebookError, match=expected):
        run_plan.preflight(specs)


def test_preflight_rejects_generated_data_for_the_paper_profile():
    specs = run_plan.plan(
        "paper", tasks=["ynat"], models=["klue/bert-base"], data_source="generated"
    )
    with pytest.raises(KluebookError, match="paper profile needs real data"):
        run_plan.preflight(specs)


def test_preflight_says_when_the_hub_is_unreachable(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    specs = run_plan.plan("paper", tasks=["ynat"], models=["klue/bert-base"], data_source="hub")
    with pytest.raises(KluebookError, match="klue/bert-base"):
        run_plan.preflight(specs)


def test_fingerprint_changes_with_parameters_data_and_code_and_names_what_changed():
    task = get_task("ynat")
    notebook = fingerprints.notebook_code(notebook_path(task))
    base = fingerprints.inputs(task, notebook, {"seed": 1}, "abc")
    assert base.fingerprint == fingerprints.inputs(task, notebook, {"seed": 1}, "abc").fingerprint
    changes = {
        "parameters": fingerprints.inputs(task, notebook, {"seed": 2}, "abc"),
        "data": fingerprints.inputs(task, notebook, {"seed": 1}, "abd"),
        "notebook": fingerprints.inputs(task, notebook + " ", {"seed": 1}, "abc"),
        "task version": base.model_copy(update={"task_version": task.version + 1}),
    }
    for name, changed in changes.items():
        assert changed.fingerprint != base.fingerprint, name
        assert base.changed(changed) == [name]


def _copy_of(task, tmp_path):
    """The task with its folder copied, so that its code can be edited in the test."""
    folder = tmp_path / task.name
    shutil.copytree(task.folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return task.model_copy(update={"folder": folder})


def test_the_run_code_hash_follows_what_the_tasks_code_does_and_its_version(tmp_path):
    task = _copy_of(get_task("ynat"), tmp_path)
    base = fingerprints.run_code_hash(task)
    metric = task.folder / "metric.py"
    source = metric.read_text()
    metric.write_text("# a comment\n" + source.replace('"""', '"""Reworded. ', 1) + "\n\n\n")
    assert fingerprints.run_code_hash(task) == base  # a comment, a docstring, blank lines
    metric.write_text(source + "\nTHRESHOLD = 1\n")
    assert fingerprints.run_code_hash(task) != base  # code that runs
    task = _copy_of(get_task("ynat"), tmp_path / "again")
    entry = task.folder / "task.yaml"
    bumped = f"version: {task.version + 1}"
    entry.write_text(entry.read_text().replace(f"version: {task.version}", bumped))
    assert fingerprints.run_code_hash(task) != base


def test_a_shared_modules_digest_ignores_docstrings_comments_and_layout_not_code(tmp_path):
    training = Path(fine_tuning.__file__)
    source = training.read_text()
    copy = tmp_path / "training.py"
    edits = {
        "docstring": source.replace('"""', '"""A reworded opening. ', 1),
        "comment": source.replace("\ndef ", "\n# a new comment\ndef ", 1),
        "layout": source.replace("\n\n\ndef ", "\n\n\n\ndef ").replace("(", "(\n", 1),
        "code": source + "\nEXTRA_STEPS = 1\n",
    }
    copy.write_text(source)
    base = fingerprints.code_digest(copy)
    for name, text in edits.items():
        assert text != source, name
        copy.write_text(text)
        assert (fingerprints.code_digest(copy) == base) == (name != "code"), name


def test_an_overridden_run_has_its_own_files_and_parameters_are_portable():
    default = run_plan.plan("smoke", tasks=["ynat"], seeds=[1])[0]
    tuned = run_plan.plan("smoke", tasks=["ynat"], seeds=[1], extra={"learning_rate": 3e-5})[0]
    assert default.config == "" and tuned.config == "learning_rate=3e-05"
    assert default.record_path.name == "kluebook--tiny-roberta-seed1.json"
    assert tuned.record_path.name == "kluebook--tiny-roberta-learning_rate=3e-05-seed1.json"
    assert tuned.notebook_path != default.notebook_path
    assert tuned.output_dir != default.output_dir
    assert not Path(default.parameters()["output_dir"]).is_absolute()


def test_a_run_on_other_data_is_its_own_run(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(data_dir_for(get_task("ynat"), "generated", None), data)
    spec = run_plan.plan("smoke", tasks=["ynat"], seeds=[1], data_source="official", data_dir=data)[
        0
    ]
    assert spec.config.startswith("official,data-")
    assert spec.record_path != run_plan.plan("smoke", tasks=["ynat"], seeds=[1])[0].record_path


def test_a_sweep_file_expands_its_grid(tmp_path):
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        "profile: smoke\ndata_source: generated\nmodels: [kluebook/tiny-roberta]\n"
        "seeds: [1, 2]\nparameters: {learning_rate: [1.0e-5, 3.0e-5], epochs: 2}\n"
    )
    specs = run_plan.plan(tasks=["ynat"], matrix_path=sweep)
    assert len(specs) == 4
    assert {s.config for s in specs} == {
        "epochs=2,learning_rate=1e-05",
        "epochs=2,learning_rate=3e-05",
    }
    assert {s.seed for s in specs} == {1, 2}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("profile: smoke\nmodels: [m]\nseeds: [1]\nlr: 3\n", "unknown key 'lr'"),
        ("profile: quick\nmodels: [m]\nseeds: [1]\n", "profile must be one of smoke, paper"),
        ("profile: smoke\nmodels: m\nseeds: [1]\n", "models must be a non-empty list"),
        ("profile: smoke\nmodels: [m]\nseeds: [1, x]\n", "seeds must be a non-empty list of int"),
        ("profile: smoke\nmodels: [m]\nseeds: [1]\nparameters: {epochs: []}\n", "empty list"),
        ("profile: [smoke\n", "not valid YAML"),
    ],
)
def test_a_bad_sweep_file_gets_a_one_line_error(tmp_path, text, message):
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(text)
    with pytest.raises(KluebookError, match=message) as caught:
        run_plan.plan(tasks=["ynat"], matrix_path=sweep)
    assert "\n" not in str(caught.value)


def test_a_record_is_done_only_if_it_succeeded_with_the_same_fingerprint(tmp_path, monkeypatch):
    monkeypatch.setattr(method_interface, "RESULTS", tmp_path / "results")
    spec = run_plan.plan("smoke", tasks=["ynat"])[0]
    spec.executed_path.parent.mkdir(parents=True)
    spec.executed_path.write_text("{}")
    good = valid_record({})
    records.write_record(spec.record_path, good)
    assert run_store.is_done(spec, good.fingerprint)
    assert not run_store.is_done(spec, "f2")
    spec.executed_path.unlink()  # its page could not be rendered again
    assert not run_store.is_done(spec, good.fingerprint)
    spec.executed_path.write_text("{}")
    spec.record_path.write_text('{"status": "succ')  # a torn write is never taken as done
    assert not run_store.is_done(spec, good.fingerprint)


def test_the_example_sweep_is_a_valid_matrix():
    specs = run_plan.plan(tasks=["ynat"], matrix_path=CONFIGS / "sweeps/learning-rate.yaml")
    assert len(specs) == 6
    assert {s.config for s in specs} == {f"learning_rate={v}" for v in (0.0005, 0.001, 0.002)}


def test_a_run_is_sent_with_the_inputs_it_is_later_checked_against():
    """The inputs a run's record carries are the ones `is_done` and the report compute today,
    so a run just made is neither executed again nor shown as stale."""
    for task in ("ynat", "ner"):
        spec = run_plan.plan("smoke", tasks=[task])[0]
        _, sent = run_spec.run_request(spec)
        assert sent == run_spec.spec_inputs(spec)
        assert sent.notebook == fingerprints.current_code(spec.task)["notebook"]


def test_one_options_value_plans_the_runs_a_command_asks_for(tmp_path):
    options = run_plan.Options(
        "smoke",
        tasks=["ynat"],
        seeds=[3],
        extra={"learning_rate": 3e-5},
        matrix_path=CONFIGS / "sweeps/learning-rate.yaml",
        model_revision="main",
    )
    (spec,) = {s.config: s for s in run_plan.planned(options)}.values()
    assert (spec.task.name, spec.seed, spec.model_revision) == ("ynat", 3, "main")
    assert spec.config == "learning_rate=3e-05"  # the override replaced the sweep's grid
    assert [s.name for s in run_plan.prepare(dataclasses.replace(options, model_revision=""))] == [
        spec.name
    ]
    elsewhere = dataclasses.replace(options, data_source="official", data_dir=str(tmp_path))
    with pytest.raises(KluebookError, match="lacks the ynat files"):  # checked before any run
        run_plan.prepare(elsewhere)


def test_runs_at_once_start_costliest_first_by_their_last_wall_time_else_their_task(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(method_interface, "RESULTS", tmp_path / "results")
    specs = run_plan.plan("smoke", tasks=["ynat", "mrc", "wos"])
    declared = sorted(specs, key=lambda s: -s.task.smoke_cost_s)  # stable: seeds stay in order
    assert [s.task.smoke_cost_s for s in declared] != [s.task.smoke_cost_s for s in specs]
    assert runner.costliest_first(specs) == declared
    slowest = max(s.task.smoke_cost_s for s in specs)
    ynat_seed2 = specs[1]
    record = valid_record({"task": "ynat", "seed": 2, "wall_time_s": 2 * slowest})
    records.write_record(ynat_seed2.record_path, record)
    assert runner.costliest_first(specs) == [ynat_seed2, *(s for s in declared if s != ynat_seed2)]
