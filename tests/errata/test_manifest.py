"""The errata manifest: its schema refuses what it does not know, each metric erratum's variant
is a value its task's scorer gives, and each data erratum names an upstream source and a file."""

import hashlib
import json
import re
import shutil

import pytest
import yaml

from kluebook.common.errors import KluebookError
from kluebook.errata import manifest as errata
from kluebook.scoring.predictions import score_predictions
from kluebook.tasks import get_task, task_module


def written(tmp_path, change) -> object:
    data = yaml.safe_load(errata.MANIFEST.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "errata.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return errata.parse_manifest(path)


def test_the_shipped_manifest_is_valid_and_versioned():
    shipped = errata.manifest()
    assert shipped.version and len(shipped.errata) >= 6
    assert {e.kind for e in shipped.errata} == {"metric", "label", "text"}


def test_each_erratum_is_a_bug_a_naming_problem_or_a_data_error():
    natures = {e.id: e.nature for e in errata.manifest().errata}
    assert natures["wos-slot-f1-turn-mean"] == "naming"  # what trade-dst computes, misnamed
    assert {natures[k] for k in ("ner-char-f1-o-tag", "dp-las-pad", "mrc-bracket-pattern")} == {
        "bug"
    }
    for erratum in errata.manifest().errata:
        assert (erratum.nature == "data") == (erratum.kind != "metric")
        assert erratum.corrects == (erratum.nature != "naming")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["errata"][0].update(severity="high"), "errata.0.severity"),
        (lambda d: d["errata"][0].pop("source"), "errata.0.source"),
        (lambda d: d["errata"][0]["source"].pop("pull"), "names its issue, pull request or file"),
        (lambda d: d["errata"][0].pop("variants"), "names its variants"),
        (lambda d: d["errata"][4]["file"].pop("sha256"), "sha256"),
        (lambda d: d["errata"][4].pop("patch"), "names the upstream patch of its edits"),
        (lambda d: d.update(version="latest"), "version"),
        (lambda d: d["errata"][0].pop("nature"), "errata.0.nature"),
        (lambda d: d["errata"][0].update(nature="typo"), "errata.0.nature"),
        (lambda d: d["errata"][0].update(nature="data"), "of nature data, and only it"),
        (lambda d: d["errata"][4].update(nature="naming"), "of nature data, and only it"),
        (lambda d: d["errata"].append(dict(d["errata"][0])), "share an id"),
    ],
)
def test_a_bad_entry_is_refused_in_one_line(tmp_path, change, message):
    with pytest.raises(KluebookError, match=message) as raised:
        written(tmp_path, change)
    assert "\n" not in str(raised.value)


METRIC_ERRATA = [e for e in errata.manifest().errata if e.kind == "metric"]


@pytest.mark.parametrize("erratum", METRIC_ERRATA, ids=lambda e: e.id)
def test_a_metric_variant_is_scored_beside_its_official_metric(erratum, smoke_dev):
    task = get_task(erratum.task)
    gold, _ = smoke_dev(erratum.task)
    metrics = score_predictions(task, gold, task_module(task).gold_predictions(gold))
    for official, variant in erratum.variants.items():
        assert official in {m.key for m in task.metrics}  # the headline it stands beside
        assert metrics[variant] == pytest.approx(100.0)  # the gold scores the maximum on both


def test_every_data_erratum_names_its_upstream_source_and_file():
    for erratum in errata.manifest().errata:
        assert erratum.source.url.startswith("https://github.com/KLUE-benchmark/")
        if erratum.kind != "metric":
            assert erratum.file.path.startswith(get_task(erratum.task).files[erratum.split][:8])
            assert erratum.applied == bool(erratum.edits)


def test_an_edits_file_that_is_missing_refuses_its_erratum(tmp_path, monkeypatch):
    shutil.copy(errata.MANIFEST, tmp_path / "errata.yaml")
    monkeypatch.setattr(errata, "HERE", tmp_path)
    errata._edits.cache_clear()
    try:
        shipped = errata.parse_manifest(tmp_path / "errata.yaml").errata
        erratum = next(e for e in shipped if e.kind == "label" and e.applied)
        with pytest.raises(KluebookError, match="edits file"):
            list(erratum.edits)
    finally:
        errata._edits.cache_clear()


def test_the_readme_names_the_shipped_errata_version():
    from kluebook.common.paths import ROOT

    named = set(re.findall(r"errata=(\d{4}-\d{2}(?:\.\d+)?)", (ROOT / "README.md").read_text()))
    assert named == {errata.manifest().version}


# What of the manifest moves a record's values (its corrected values, or a corrected run's
# items), by version. Records are judged stale for their corrected values by the version alone,
# so a change of these facts needs a new version: add it here with the digest this test prints.
VALUE_DIGESTS = {"2026-12.2": "e8efe6bf2b1020ff1da6105deeefba342166601e845b32e823705cea8edaca6c"}
VALUE_FIELDS = ("id", "task", "split", "kind", "variants", "file", "patch")


def test_what_moves_the_values_changes_only_with_the_version():
    shipped = errata.manifest()
    facts = [
        {
            **{k: v for k, v in e.model_dump(mode="json").items() if k in VALUE_FIELDS},
            "applied": e.applied,
            "edits": [edit.model_dump() for edit in e.edits],
        }
        for e in shipped.errata
    ]
    digest = hashlib.sha256(json.dumps(facts, sort_keys=True, ensure_ascii=False).encode())
    assert VALUE_DIGESTS.get(shipped.version) == digest.hexdigest(), (
        f"the errata's values changed under version {shipped.version}: raise the version "
        f"(digest {digest.hexdigest()})"
    )
