"""A third method is one module and one registration: a toy method, registered here and nowhere
else, is planned, named, recorded, read back, pooled into rows and shown in a block of its own
in the KLUE table, with no other change; and a fine-tuned run carries no setting it has not
(no server)."""

from typing import ClassVar

import pytest
import yaml
from conftest import valid_record

from kluebook.book.klue_table import sections_for, table_html
from kluebook.book.results_page import build_contents
from kluebook.common.errors import KluebookError
from kluebook.methods.fine_tuned import FineTuned, FineTunedRun
from kluebook.methods.interface import RunSettings, ServedBy
from kluebook.methods.registry import method_named, method_names, register, unregister
from kluebook.recording import records
from kluebook.results import aggregation
from kluebook.running import run_plan, run_spec
from kluebook.tasks import get_task, notebook_path

YNAT = get_task("ynat")
SERVER = ServedBy(base_url="http://x/v1")


class ToyRun(FineTunedRun):
    """A toy run: no field beyond the shared ones, the fine-tuned notebook; its configuration
    says `toy`."""

    method_name: ClassVar[str] = "toy"

    def config_parts(self) -> list[str]:
        return ["toy"]


class Toy(FineTuned):
    """The fine-tuned notebook under another name, shown beside the ranking, never in it."""

    name: ClassVar[str] = "toy"
    settings = ToyRun
    named_in_record = True
    ranked = False
    rerun_options = ("--matrix", "toy.yaml")
    smoke_made = "made by a toy"
    runs_word = "toy runs"

    def label(self, shots: int | None) -> str:
        return "toy"

    def own_part(self, part: str) -> bool:
        return part == "toy"

    def table_section(self, profile: str, split: str) -> tuple[str, str]:
        return f"Toy method: {profile} profile, {split}", f"Toy, {profile}, {split}"


@pytest.fixture
def toy():
    register(Toy())
    yield
    unregister("toy")


def toy_matrix(tmp_path):
    path = tmp_path / "toy.yaml"
    matrix = {
        "profile": "smoke",
        "method": "toy",
        "data_source": "generated",
        "models": ["kluebook/tiny-roberta"],
        "seeds": [1],
        "parameters": {"dev_limit": 20},
    }
    path.write_text(yaml.safe_dump(matrix), encoding="utf-8")
    return path


def test_a_method_unknown_to_the_registry_is_one_line_naming_the_known_ones(tmp_path):
    with pytest.raises(KluebookError, match="unknown method 'toy'; choose fine-tuned or prompted"):
        method_named("toy")
    with pytest.raises(KluebookError, match=r"method must be one of fine-tuned, prompted$"):
        run_plan.plan(matrix_path=toy_matrix(tmp_path), tasks=["ynat"])


def test_the_planner_names_and_parameterises_a_registered_method_s_runs(toy, tmp_path):
    assert method_names() == ("fine-tuned", "prompted", "toy")
    (spec,) = run_plan.plan(matrix_path=toy_matrix(tmp_path), tasks=["ynat"])
    assert (spec.method, spec.config) == ("toy", "toy,dev_limit=20")
    assert spec.record_path.name == "kluebook--tiny-roberta-toy,dev_limit=20-seed1.json"
    assert spec.source_notebook == notebook_path(YNAT)
    assert isinstance(spec, ToyRun) and spec.served_by is None
    assert sorted(spec.parameters()) == sorted(
        ["model", "profile", "data_source", "data_dir", "seed", "output_dir", "dev_limit"]
    )
    with pytest.raises(KluebookError, match="--base-url is for prompted runs"):
        run_plan.plan(matrix_path=toy_matrix(tmp_path), tasks=["ynat"], server=SERVER)


def test_a_fine_tuned_run_has_no_server_setting():
    (spec, _) = run_plan.plan("smoke", tasks=["ynat"])
    assert type(spec) is FineTunedRun
    assert set(FineTunedRun.model_fields) == set(RunSettings.model_fields)
    assert not hasattr(spec, "base_url") and not hasattr(spec, "server")
    with pytest.raises(KluebookError, match="--base-url is for prompted runs"):
        run_plan.plan("smoke", tasks=["ynat"], server=SERVER)


def toy_record(accuracy: float):
    return valid_record(
        {
            "method": "toy",
            "config": "toy,dev_limit=20",
            "overrides": {"dev_limit": 20},
            "metrics": {"macro_f1": accuracy},
        }
    )


def fine_tuned_record(accuracy: float, model="kluebook/tiny-roberta"):
    return valid_record({"model": model, "metrics": {"macro_f1": accuracy}})


def test_a_record_of_a_registered_method_names_it_and_reads_back(toy, tmp_path):
    record = toy_record(99.0)
    records.write_record(tmp_path / "toy.json", record)
    assert records.parse_record(tmp_path / "toy.json") == record
    assert record.as_dict()["method"] == "toy"
    assert "method" not in fine_tuned_record(50.0).as_dict()  # as records have always been
    spec = run_spec.spec_of(record)
    assert (spec.method, spec.config) == ("toy", "toy,dev_limit=20")
    unregister("toy")
    with pytest.raises(KluebookError, match="method: Value error, unknown method 'toy'"):
        records.parse_record(tmp_path / "toy.json")


def test_rows_of_a_registered_method_sit_in_a_block_of_their_own_never_ranked(toy, tmp_path):
    rows = aggregation.reproduced_rows([fine_tuned_record(50.0), toy_record(99.0)], tmp_path)
    toy_row = next(row for row in rows if row.method == "toy")
    assert toy_row.configuration == "toy, dev_limit=20"
    assert not toy_row.is_ranked(("ynat", "macro_f1"))
    html = table_html(sections_for(rows, []), [YNAT], "book/results")
    mine = html.split('<tbody class="toy-method">')[1].split("</tbody>")[0]
    assert "Toy method: smoke profile, dev (generated)" in mine
    assert "99.00" in mine and "<strong>" not in mine
    smoke = html.split('<tbody class="pipeline-check">')[1].split("</tbody>")[0]
    assert "99.00" not in smoke and "50.00" in smoke
    assert "**smoke** toy runs of `kluebook/tiny-roberta` (toy, dev_limit=20)" in build_contents(
        [fine_tuned_record(50.0), toy_record(99.0)], tmp_path
    )
