"""Published, reproduced, corrected on the pages: the corrected values of the records beside
the official ones (never in their place), the errata page's measured effects and the task
page's list of the errata that move its numbers."""

from conftest import valid_record

from kluebook.book import errata_page, pages
from kluebook.book.klue_table import table_html
from kluebook.errata.manifest import manifest
from kluebook.results.aggregation import published_rows, published_scores, reproduced_rows
from kluebook.results.links import RESULTS_PAGE
from kluebook.tasks import all_tasks, get_task

DP = get_task("dp")


def dp_record(seed: int, las: float, corrected: float, **fields):
    errata = {"version": manifest().version, "corrected": {"dp-las-pad": {"las": corrected}}}
    return valid_record(
        {
            "task": "dp",
            "seed": seed,
            "metrics": {"uas": 70.0, "las": las, "las_wrong_heads_as_errors": corrected},
            "errata": errata,
            **fields,
        }
    )


def test_the_corrected_table_sets_each_correction_beside_its_official_number():
    rows = reproduced_rows([dp_record(1, 60.0, 64.0), dp_record(2, 62.0, 66.0)])
    html = errata_page.corrected_html(rows, [], [DP], RESULTS_PAGE)
    assert "<td>DP LAS</td>" in html and "dp-las-pad</a>" in html
    assert '<span class="config">correction</span>' in html
    assert '<td class="num">61.00</td><td class="num corrected">65.00</td>' in html
    assert "+4.00" in html
    # The official column of the KLUE table keeps the official number, marked as corrected.
    table = table_html([], [DP], RESULTS_PAGE)
    assert 'aria-label="corrected values: dp-las-pad"' in table


def test_a_record_from_before_the_errata_has_no_corrected_value_and_says_so():
    rows = reproduced_rows([valid_record({"task": "dp", "metrics": {"uas": 70.0, "las": 60.0}})])
    assert errata_page.corrected_html(rows, [], [DP], RESULTS_PAGE).startswith("No run")


def test_the_errata_page_measures_each_erratum_on_the_runs_of_the_build():
    rows = reproduced_rows([dp_record(1, 60.0, 64.0)])
    page = errata_page.render_errata(rows, list(all_tasks().values()))
    assert f"version **{manifest().version}**" in page
    for erratum in manifest().errata:
        assert f"({errata_page.anchor(erratum)})=" in page and erratum.source.url in page
    assert "LAS 60.00 → 64.00 (+4.00, n=1)" in page
    section = page.split("(erratum-ner-dev-labels)=")[1].split("(erratum-")[0]
    assert "do not apply to generated data" in section  # no run on the file it names
    assert "klue-ner-v1_dev_01174-nsmc" in section  # the items it touches
    pending = page.split("(erratum-wos-dev-missing-values)=")[1].split("(erratum-")[0]
    assert "pending: " in pending and "moves no number" in pending


def test_a_task_page_says_which_of_its_numbers_an_erratum_moves():
    ner = get_task("ner")
    page = pages.landing_page(ner, [], [], published_rows(published_scores()))
    errata = page.split("## Errata")[1].split("## Runs")[0]
    assert (
        "Character F1 averages over the O tag <erratum-ner-char-f1-o-tag>`: moves Character F1"
        in errata
    )
    assert "moves Entity F1, Character F1 (data, label)" in errata


def wos_record(slot_f1: float, pooled: float):
    errata = {"version": manifest().version, "corrected": {WOS_NAMING: {"slot_f1": pooled}}}
    metrics = {"joint_goal_accuracy": 50.0, "slot_f1": slot_f1, "slot_f1_pooled": pooled}
    return valid_record({"task": "wos", "metrics": metrics, "errata": errata})


WOS_NAMING = "wos-slot-f1-turn-mean"


def test_a_naming_problem_is_shown_as_an_alternative_statistic_not_a_correction():
    wos = get_task("wos")
    rows = reproduced_rows([wos_record(80.0, 78.5)])
    html = errata_page.corrected_html(rows, [], [wos], RESULTS_PAGE)
    assert "alternative statistic, not a correction</span>" in html
    assert '<td class="num alternative">78.50</td>' in html
    assert '<td class="num corrected">' not in html
    table = table_html([], [wos], RESULTS_PAGE)
    assert f'aria-label="alternative statistics, not corrections: {WOS_NAMING}"' in table
    assert '<sup class="alternative">' in table and '<sup class="corrected">' not in table
    assert '</span>a<span class="visually-hidden">: alternative)</span>' in table
    page = errata_page.render_errata(rows, [wos])
    section = page.split(f"(erratum-{WOS_NAMING})=")[1].split("(erratum-")[0]
    assert "naming: the code does what its source does" in section
    assert "Alternative statistic" in section and "Corrected value" not in section
    assert "* - Beside\n  - Slot F1" in section
    assert "(official value → alternative statistic)" in section
    assert "Slot F1 80.00 → 78.50" in section
    landing = pages.landing_page(wos, [], [], published_rows(published_scores()))
    assert "an alternative statistic beside Slot F1 (naming, metric)" in landing


def test_the_errata_page_says_each_metric_erratum_s_whole_effect():
    page = errata_page.render_errata([], list(all_tasks().values()))
    dp = page.split("(erratum-dp-las-pad)=")[1].split("(erratum-")[0]
    assert "k/(k+1)" in dp and "does not count an eojeol twice" in dp
    assert "bug: the code does not do what it says" in dp
    mrc = page.split("(erratum-mrc-bracket-pattern)=")[1].split("(erratum-")[0]
    assert "이글스(일본)" in mrc and "“” and 「」" in mrc
    # The two pending data errata stay listed, each with why its edits cannot be built.
    for pending in ("wos-dev-missing-values", "dp-dev-excel-damage"):
        section = page.split(f"(erratum-{pending})=")[1].split("(erratum-")[0]
        assert "pending: " in section and "cannot be built" in section
