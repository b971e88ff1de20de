"""The errata manifest is versioned apart from the code: a record made under another errata
version keeps its official numbers current and has its corrected values marked stale; a run on
items an old version corrected is stale as a whole."""

from conftest import valid_record

from kluebook.errata.manifest import manifest
from kluebook.methods.fine_tuned import FINE_TUNED
from kluebook.recording.fingerprints import package_data, run_modules
from kluebook.results.aggregation import reproduced_rows
from kluebook.results.pooling import ERRATA_VERSION, code_today, stale_reason
from kluebook.tasks import get_task

OLD = "2026-12.1"


def dp_record(version: str, applied: list[str] | None = None):
    errata = {"version": version, "corrected": {"dp-las-pad": {"las": 58.0}}}
    if applied:
        errata["applied"] = applied
    metrics = {"uas": 70.0, "las": 60.0, "las_wrong_heads_as_errors": 58.0}
    return valid_record({"task": "dp", "metrics": metrics, "errata": errata})


def test_the_shipped_version_is_not_the_old_one():
    assert manifest().version != OLD


def test_a_record_of_an_old_errata_version_is_stale_for_its_corrected_values_only():
    old, current = dp_record(OLD), dp_record(manifest().version)
    (row,) = reproduced_rows([old])
    assert row.cells[("dp", "las")].stale == "" and row.cells[("dp", "uas")].stale == ""
    assert row.cells[("dp", "las@dp-las-pad")].stale == ERRATA_VERSION
    assert stale_reason(old, code_today([old])) == ""  # its run page and status: current
    (row,) = reproduced_rows([current])
    assert row.cells[("dp", "las@dp-las-pad")].stale == ""


def test_a_run_on_items_an_old_errata_version_corrected_is_stale_as_a_whole():
    old = dp_record(OLD, applied=["dp-dev-excel-damage"])
    assert stale_reason(old, code_today([old])) == ERRATA_VERSION
    (row,) = reproduced_rows([old])
    assert row.cells[("dp", "las")].stale == ERRATA_VERSION
    assert row.cells[("dp", "las@dp-las-pad")].stale == ERRATA_VERSION
    current = dp_record(manifest().version, applied=["dp-dev-excel-damage"])
    assert stale_reason(current, code_today([current])) == ""


def test_the_errata_manifest_is_no_part_of_the_code_a_run_fingerprints():
    modules = run_modules(get_task("ner"), FINE_TUNED)
    names = [name for name, _ in modules]
    assert "kluebook.errata.corrections" in names  # the errata's code is
    assert not any(name.startswith("kluebook.errata/") for name in names)  # their data is not
    # ... because the errata version them: without that exception the manifest would be there.
    every = package_data(modules, versioned=frozenset())
    assert "kluebook.errata/errata.yaml" in [name for name, _ in every]


def test_the_pages_mark_a_corrected_value_of_an_old_errata_version_stale():
    from kluebook.book import errata_page
    from kluebook.results.links import RESULTS_PAGE

    dp = get_task("dp")
    rows = reproduced_rows([dp_record(OLD)])
    html = errata_page.corrected_html(rows, [], [dp], RESULTS_PAGE)
    assert '58.00<span class="stale"> stale: errata version changed</span>' in html
    assert '<td class="num">60.00</td>' in html  # the official number, unmarked
    page = errata_page.render_errata(rows, [dp])
    assert "LAS 60.00 → 58.00 (-2.00, n=1), stale: errata version changed" in page
