"""A run's overrides (`--set`, a matrix's parameters) are typed by a model per method and task,
built from its notebook's parameters, its recipe's fields and its task's switches: a switch is a
`Literal` of its choices, a value keeps the type it was given (so a run's name prints it as it
always has), and a bad name or value is one line naming it."""

from typing import Literal, get_args

import pytest

from kluebook.cli.options import parse_settings
from kluebook.common.errors import KluebookError
from kluebook.common.paths import CONFIGS
from kluebook.methods.registry import method_named
from kluebook.running import run_plan
from kluebook.tasks import get_task

PROMPTED_SMOKE = CONFIGS / "sweeps" / "prompted-smoke.yaml"


def test_the_model_of_a_task_types_its_own_switches_and_the_recipe_s_fields():
    fine_tuned = method_named("fine-tuned")
    dp = fine_tuned.overrides(get_task("dp"))
    assert dp.model_fields["dp_scorer_init"].annotation == Literal["official", "kluebook-0.1"]
    assert get_args(dp.model_fields["optimizer"].annotation) == (
        "adamw_transformers3",
        "adamw_torch",
    )
    assert dp.model_fields["fp16"].annotation is bool
    assert dp.model_fields["eval_batch_size"].annotation is int
    assert "ner_boundary_tags" not in dp.model_fields  # another task's switch
    assert fine_tuned.overrides(get_task("dp")) is dp  # made once per task
    # The runner's parameters are no overrides; a prompted run has no recipe.
    assert not {"model", "seed", "profile", "output_dir"} & set(dp.model_fields)
    prompted = method_named("prompted").overrides(get_task("dp"))
    assert set(prompted.model_fields) == {
        "train_limit",
        "dev_limit",
        "shots",
        "template",
        "mode",
        "errata",
    }


def test_values_keep_their_type_and_the_name_they_always_printed():
    """`1e-5` stays the float 1e-05, `3` the int 3 (not 3.0), `true` the bool True: the run's
    name and notebook parameters are those the untyped JSON values gave."""
    given = parse_settings(
        ["learning_rate=1e-5", "epochs=3", "group_by_length=true", "max_length=32"]
    )
    (spec,) = run_plan.plan("smoke", tasks=["ynat"], seeds=[1], extra=given)
    assert spec.extra == given and list(spec.extra) == list(given)
    assert [type(v) for v in spec.extra.values()] == [float, int, bool, int]
    assert spec.config == "epochs=3,group_by_length=True,learning_rate=1e-05,max_length=32"
    assert {k: spec.parameters()[k] for k in given} == given


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"max_length": "abc"}, "max_length must be an integer, got 'abc'"),
        ({"max_length": 2.5}, "max_length must be an integer, got 2.5"),
        ({"fp16": 1}, "fp16 is a switch: true or false, got 1"),
        (
            {"optimizer": "sgd"},
            "recipe switch optimizer must be one of adamw_transformers3, adamw_torch, got 'sgd'",
        ),
        (
            {"dp_scorer_init": "xavier"},
            "recipe switch dp_scorer_init must be one of official, kluebook-0.1, got 'xavier'",
        ),
        ({"dev_limit": -1}, "dev_limit must be a whole number >= 0, got -1"),
        ({"dev_limit": True}, "dev_limit must be a whole number >= 0, got True"),
        ({"learning_rat": 1e-3}, "unknown parameter 'learning_rat' for dp; known: train_limit, "),
    ],
)
def test_a_value_of_the_wrong_type_or_an_unknown_choice_is_one_line(extra, message):
    with pytest.raises(KluebookError) as refused:
        run_plan.plan("smoke", tasks=["dp"], seeds=[1], extra=extra)
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


def test_a_prompted_run_is_typed_by_its_own_notebook_s_parameters():
    with pytest.raises(KluebookError, match=r"^shots must be a whole number >= 0, got 'five'$"):
        run_plan.plan(
            matrix_path=PROMPTED_SMOKE, tasks=["ynat"], seeds=[1], extra={"shots": "five"}
        )
    with pytest.raises(KluebookError, match=r"^unknown parameter 'learning_rate' for ynat; known:"):
        run_plan.plan(
            matrix_path=PROMPTED_SMOKE, tasks=["ynat"], seeds=[1], extra={"learning_rate": 1e-3}
        )


def test_a_run_built_from_overrides_types_them_and_one_built_from_a_record_keeps_them():
    (spec,) = run_plan.plan("smoke", tasks=["ynat"], seeds=[1])
    with pytest.raises(KluebookError, match=r"^epochs must be a number, got 'abc'$"):
        spec.but(extra={"epochs": "abc"})
    # A record keeps what it was run with (a value today's model may no longer take).
    recorded = spec.but(extra={"errata": 0}, recorded_config="errata=0")
    assert recorded.extra == {"errata": 0}
