"""What `kluebook book` runs: the smoke book adds the prompted smoke runs of every task and NLI's
sweep over templates and demonstration seeds to the fine-tuned smoke runs; --tasks cuts them,
and a selection of its own (--matrix, --models, --seeds, --set, …) runs only what it names."""

from collections import Counter

from kluebook.cli.choices import Selection, book_selections, run_options
from kluebook.methods.fine_tuned import FINE_TUNED
from kluebook.methods.prompted import PROMPTED, template_of
from kluebook.running.run_plan import planned
from kluebook.tasks import available_tasks


def runs(selection: Selection) -> list:
    return [spec for s in book_selections(selection) for spec in planned(run_options(s))]


def test_the_smoke_book_runs_every_task_prompted_and_one_task_s_template_sweep():
    specs = runs(Selection())
    tasks = available_tasks()
    fine_tuned = Counter(s.task.name for s in specs if s.method == FINE_TUNED)
    assert fine_tuned == dict.fromkeys(tasks, 2)  # configs/smoke.yaml: two seeds
    smoke = [s for s in specs if s.method == PROMPTED and "template" not in s.extra]
    assert {(s.task.name, s.extra["shots"]) for s in smoke} == {
        (task, shots) for task in tasks for shots in (0, 5)
    }
    sweep = [s for s in specs if "template" in s.extra]
    assert {s.task.name for s in sweep} == {"nli"}
    assert Counter(template_of(s.extra) for s in sweep) == {
        "standard": 3,
        "brief": 3,
        "reworded": 3,
    }
    assert len({s.record_path for s in specs}) == len(specs)  # no two runs share a record


def test_tasks_cut_the_book_s_sweeps():
    assert {(s.method, s.task.name) for s in runs(Selection(tasks="ynat"))} == {
        (FINE_TUNED, "ynat"),
        (PROMPTED, "ynat"),
    }
    nli = runs(Selection(tasks="nli"))
    assert {s.task.name for s in nli} == {"nli"}
    assert len([s for s in nli if "template" in s.extra]) == 9


def test_a_selection_of_its_own_runs_only_what_it_names():
    for selection in (
        Selection(seeds="1"),
        Selection(models="kluebook/tiny-roberta"),
        Selection(settings=("epochs=1",)),
    ):
        assert {s.method for s in runs(selection)} == {FINE_TUNED}
    assert book_selections(Selection(profile="paper")) == [Selection(profile="paper")]
