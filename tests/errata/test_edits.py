"""Data errata as edits: built from two versions of a file, applied only where each old value
is found, on the generated data (any task's official layout) and on the real v1.1 files."""

import pytest

from kluebook.common.errors import KluebookError
from kluebook.data.loading import file_sha256
from kluebook.errata.corrections import corrected_items, corrected_values, data_errata
from kluebook.errata.edits import Edit, apply_edits, edits_between
from kluebook.errata.manifest import manifest
from kluebook.tasks import get_task, task_module
from kluebook.tasks.wos.data import read_ontology

NER = get_task("ner")


def ner_dev() -> list[dict]:
    return task_module(NER).generate(seed=3, train_size=1, dev_size=20)["dev"]


def fixed(records: list[dict]) -> list[dict]:
    """A relabelled entity, a character replaced and a character inserted, as a fix would."""
    changed = [dict(r, chars=list(r["chars"]), tags=list(r["tags"])) for r in records]
    changed[0]["tags"][0] = "B-PS" if changed[0]["tags"][0] != "B-PS" else "O"
    changed[1]["chars"][1] = "ᄏ"
    changed[2]["chars"].insert(0, "“")
    changed[2]["tags"].insert(0, "O")
    return changed


def test_the_edits_between_two_versions_turn_one_into_the_other():
    before = ner_dev()
    after = fixed(before)
    edits = edits_between(before, after, ("chars", "tags"))
    assert {(e.guid, e.field) for e in edits} == {
        (before[0]["guid"], "tags"),
        (before[1]["guid"], "chars"),
        (before[2]["guid"], "chars"),
        (before[2]["guid"], "tags"),
    }
    assert apply_edits(before, edits, "fix") == after
    assert before == ner_dev()  # the records given are left as they are


def test_an_edit_whose_old_value_is_elsewhere_refuses_the_erratum():
    before = ner_dev()
    wrong = Edit(guid=before[0]["guid"], field="tags", at=0, old=["I-QT"], new=["O"])
    with pytest.raises(KluebookError, match=r"fix: .* tags\[0\] is not \['I-QT'\]: refused"):
        apply_edits(before, [wrong], "fix")


def test_an_edit_of_an_item_not_there_is_refused_unless_the_records_are_a_part():
    before = ner_dev()
    elsewhere = Edit(guid="not-there", field="tags", at=0, old=["O"], new=["B-PS"])
    with pytest.raises(KluebookError, match="not-there is not in these records"):
        apply_edits(before, [elsewhere], "fix")
    assert apply_edits(before, [elsewhere], "fix", present_only=True) == before


def test_generated_data_takes_no_data_erratum():
    assert data_errata(NER, "dev", None) == []
    with pytest.raises(KluebookError, match="no data erratum of ner applies"):
        corrected_items(NER, ner_dev(), "0" * 64, manifest().version)


def test_an_unknown_errata_version_is_refused():
    with pytest.raises(KluebookError, match="errata version '2020-01' is not"):
        corrected_items(NER, ner_dev(), None, "2020-01")


APPLIED = [e for e in manifest().errata if e.kind != "metric" and e.applied]


@pytest.mark.realdata
@pytest.mark.parametrize("erratum", APPLIED, ids=lambda e: e.id)
def test_every_old_value_is_in_the_real_file_where_its_edit_says(erratum, klue_file):
    path = klue_file(erratum.file.path)
    assert file_sha256(path) == erratum.file.sha256
    records = task_module(get_task(erratum.task)).read_official(path)
    corrected = apply_edits(records, erratum.edits, erratum.id)  # refused if one is not
    touched = {e.guid for e in erratum.edits}
    assert sum(a != b for a, b in zip(records, corrected, strict=True)) == len(touched)


@pytest.mark.realdata
def test_the_label_erratum_rescores_real_predictions_against_the_corrected_gold(klue_file):
    path = klue_file("klue-ner-v1.1/klue-ner-v1.1_dev.tsv")
    gold = task_module(NER).read_official(path)
    rows = task_module(NER).gold_predictions(gold)  # the v1.1 gold, as if a model had predicted it
    metrics = {"char_f1": 100.0, "entity_f1": 100.0, "char_f1_without_o": 100.0}
    corrected = corrected_values(NER, gold, rows, metrics, file_sha256(path))
    assert corrected["ner-char-f1-o-tag"] == {"char_f1": 100.0}
    labels = corrected["ner-dev-labels"]  # the v1.1 tags are now wrong on three sentences
    assert labels["entity_f1"] < 100.0 and labels["char_f1"] < 100.0


PENDING_WITH_SHA = [e for e in manifest().errata if not e.applied and e.file.sha256]


@pytest.mark.realdata
@pytest.mark.parametrize("erratum", PENDING_WITH_SHA, ids=lambda e: e.id)
def test_a_pending_erratum_names_the_real_file_it_is_about(erratum, klue_file):
    assert file_sha256(klue_file(erratum.file.path)) == erratum.file.sha256


@pytest.mark.realdata
def test_the_merged_ontology_values_are_in_the_real_ontology(klue_file):
    ontology = read_ontology(klue_file("wos-v1.1/ontology.json"))
    assert "서울중앙성원남산골 한옥 마을" in ontology["관광-이름"]
    assert "이럴순없는대호스텔 제이제이" in ontology["택시-도착지"]


def test_the_label_erratum_rescores_a_sentence_worked_by_hand():
    # A made-up sentence of 24 characters under the guid of the erratum's first edit, tagged as
    # v1.1 tags it: a PS entity on characters 21 and 22. The erratum moves it to character 22
    # alone (tags 21-22 B-PS I-PS become O B-PS); the prediction is the v1.1 gold.
    erratum = next(e for e in manifest().errata if e.id == "ner-dev-labels")
    first = erratum.edits[0]
    assert (first.at, first.old, first.new) == (21, ["B-PS", "I-PS"], ["O", "B-PS"])
    tags = ["O"] * 21 + ["B-PS", "I-PS", "O"]
    gold = [
        {
            "guid": first.guid,
            "sentence": "",
            "chars": list("가나다라마바사아자차카타" * 2),
            "tags": tags,
        }
    ]
    rows = task_module(NER).gold_predictions(gold)
    metrics = {"entity_f1": 100.0, "char_f1": 100.0, "char_f1_without_o": 100.0}
    corrected = corrected_values(NER, gold, rows, metrics, erratum.file.sha256)["ner-dev-labels"]
    # Entities: gold PS on 22, predicted PS on 21-22: no exact match, PS F1 0 -> 0.
    # Characters, with an O at each end: gold O 25, B-PS 1; predicted O 24, B-PS 1 (on 21),
    # I-PS 1. B-PS 0, I-PS 0, O 2*24 / (2*24 + 0 + 1) = 48/49, the 10 other tags 1 each.
    assert corrected["entity_f1"] == 0.0
    assert corrected["char_f1"] == pytest.approx(100 * (48 / 49 + 10) / 13)
