"""Planning and checking runs: bad input fails before any notebook starts."""

import pytest

from kluebook import records, runner
from kluebook.errors import KluebookError
from kluebook.tasks import get_task


def test_smoke_matrix_plans_two_seeds_of_the_tiny_model():
    specs = runner.plan("smoke", tasks=["ynat"])
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
        runner.plan("smoke", **kwargs)


def test_unknown_profile_is_rejected():
    with pytest.raises(KluebookError, match="unknown profile 'fast'"):
        runner.plan("fast")


def test_preflight_rejects_a_data_dir_without_the_files(tmp_path):
    specs = runner.plan("smoke", tasks=["ynat"], data_source="official", data_dir=str(tmp_path))
    expected = r"lacks the ynat files: ynat-v1\.1/ynat-v1\.1_train\.json"
    with pytest.raises(KluebookError, match=expected):
        runner.preflight(specs)


def test_preflight_rejects_generated_data_for_the_paper_profile():
    specs = runner.plan("paper", tasks=["ynat"], models=["klue/bert-base"], data_source="generated")
    with pytest.raises(KluebookError, match="paper profile needs real data"):
        runner.preflight(specs)


def test_preflight_says_when_the_hub_is_unreachable(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    specs = runner.plan("paper", tasks=["ynat"], models=["klue/bert-base"], data_source="hub")
    with pytest.raises(KluebookError, match="klue/bert-base"):
        runner.preflight(specs)


def test_fingerprint_changes_with_parameters_and_data():
    notebook = runner.notebook_code(get_task("ynat").notebook_path)
    base = records.fingerprint(notebook, {"seed": 1}, "abc")
    assert base == records.fingerprint(notebook, {"seed": 1}, "abc")
    assert base != records.fingerprint(notebook, {"seed": 2}, "abc")
    assert base != records.fingerprint(notebook, {"seed": 1}, "abd")
    assert base != records.fingerprint(notebook + " ", {"seed": 1}, "abc")


def test_a_record_is_done_only_if_it_succeeded_with_the_same_fingerprint(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(runner, "RUNS", tmp_path / "runs")
    spec = runner.plan("smoke", tasks=["ynat"])[0]
    spec.notebook_path.parent.mkdir(parents=True)
    spec.notebook_path.write_text("{}")
    records.write_record(spec.record_path, {"status": "succeeded", "fingerprint": "f1"})
    assert runner.is_done(spec, "f1")
    assert not runner.is_done(spec, "f2")
    records.write_record(spec.record_path, {"status": "failed", "fingerprint": "f1"})
    assert not runner.is_done(spec, "f1")
    spec.record_path.write_text('{"status": "succ')  # a torn write is never taken as done
    assert not runner.is_done(spec, "f1")
