"""A run is one typed settings object per method (`RunSettings`: the shared fields in one base,
`FineTunedRun` and `PromptedRun` beside it), built once by the plan or from a record and
handed down whole; its notebook parameters are derived from the models, not listed by hand."""

import pytest
from pydantic import ValidationError

from kluebook.common.paths import CONFIGS
from kluebook.methods.fine_tuned import FineTunedRun
from kluebook.methods.interface import NotebookParameters, RunSettings, ServedBy
from kluebook.methods.prompted import PromptedParameters, PromptedRun
from kluebook.notebook.steps import REVISION_PARAMETERS
from kluebook.prompting import checks
from kluebook.prompting.server_options import ServerOptions
from kluebook.running import run_plan
from kluebook.tasks import get_task

PROMPTED_SMOKE = CONFIGS / "sweeps" / "prompted-smoke.yaml"


def test_the_plan_builds_each_method_s_own_model_with_its_typed_fields():
    (fine_tuned,) = run_plan.plan("smoke", tasks=["ynat"], seeds=[1])
    assert type(fine_tuned) is FineTunedRun and fine_tuned.served_by is None
    served = run_plan.plan(
        matrix_path=PROMPTED_SMOKE,
        tasks=["nli"],
        seeds=[1],
        server=ServedBy(base_url="http://127.0.0.1:1/v1"),
    )
    assert {type(spec) for spec in served} == {PromptedRun}
    assert isinstance(served[0].server, ServedBy)
    assert served[0].server.base_url == "http://127.0.0.1:1/v1"
    assert served[0].config.startswith("prompted,server,")
    # Its server's fields become the prompted notebook's parameters of those names.
    own = served[0].method_parameters()
    assert list(own) == ["task", "base_url", "served_model", "server_options"]
    assert set(own) <= set(PromptedParameters.model_fields)
    assert own["server_options"] == ServerOptions().model_dump()


def test_a_run_refuses_a_field_its_method_has_not_and_a_value_of_the_wrong_type():
    task = get_task("ynat")
    shared = {"task": task, "model": "m", "seed": 1, "profile": "smoke", "data_source": "generated"}
    with pytest.raises(ValidationError, match="server"):
        FineTunedRun(**shared, server=ServedBy(base_url="http://x/v1"))
    with pytest.raises(ValidationError, match="seed"):
        FineTunedRun(**{**shared, "seed": "one"})
    with pytest.raises(ValidationError, match="frozen"):
        FineTunedRun(**shared).seed = 2  # frozen: handed down whole, never patched


def test_the_notebook_parameters_the_settings_give_are_derived_from_the_models():
    (spec,) = run_plan.plan("smoke", tasks=["ynat"], seeds=[1], model_revision="main")
    shared = [n for n in NotebookParameters.model_fields if n in RunSettings.model_fields]
    assert (
        RunSettings.shared_names()
        == tuple(shared)
        == (
            "model",
            "profile",
            "data_source",
            "data_dir",
            "seed",
        )
    )
    assert (
        REVISION_PARAMETERS == RunSettings.revision_names() == ("model_revision", "data_revision")
    )
    assert list(spec.parameters()) == [*shared, "output_dir", "model_revision"]
    assert spec.parameters()["model_revision"] == "main"


def test_a_changed_run_is_validated_and_named_afresh():
    (spec,) = run_plan.plan(
        matrix_path=PROMPTED_SMOKE, tasks=["nli"], seeds=[1], extra={"shots": 0}
    )
    assert spec.config == "prompted,dev_limit=20,shots=0"  # cached on the first run
    changed = spec.but(extra={**spec.extra, "shots": 5})
    assert changed.config == "prompted,dev_limit=20,shots=5" and spec.config.endswith("shots=0")
    with pytest.raises(ValidationError, match="seed"):
        spec.but(seed="one")
    assert (
        spec
        == run_plan.plan(matrix_path=PROMPTED_SMOKE, tasks=["nli"], seeds=[1], extra={"shots": 0})[
            0
        ]
    )


def test_the_template_check_generates_one_item_not_a_whole_data_set(monkeypatch):
    """`--set template=` is checked where it enters on one generated item of each size."""
    asked = []
    real = checks.task_module

    class OneItem:
        def __init__(self, task):
            self.module = real(task)

        def generate(self, **sizes):
            asked.append(sizes)
            return self.module.generate(**sizes)

    monkeypatch.setattr(checks, "task_module", OneItem)
    checks.first_item.cache_clear()
    try:
        item = checks.first_item("nli")
    finally:
        checks.first_item.cache_clear()
    assert asked == [{"seed": 0, "train_size": 1, "dev_size": 1}]
    assert set(item.choices) == {"참", "거짓", "알 수 없음"} and "premise" in item.fields
