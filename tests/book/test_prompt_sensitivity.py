"""The prompted scores' sensitivity to the prompt on the pages: the task page and the results
page show each model's spread over templates and demonstration seeds (lowest, median, highest,
each template's mean with its interval) and whether two models' ranking holds across the
templates; the task's figure draws each template's score, and the same records draw the same
file."""

import pytest
from support.template_sweep import NLI, template_sweep

from kluebook.book import pages, result_figures, results_page
from kluebook.book.prompt_sensitivity import sensitivity_figure_path
from kluebook.results.aggregation import published_rows, published_scores, reproduced_rows
from kluebook.results.sensitivity import sweeps
from kluebook.results.uncertainty import interval_text


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    root = tmp_path_factory.mktemp("sweep")
    records = template_sweep(root)
    return records, reproduced_rows(records, root), root


def section(page: str, heading: str) -> str:
    """The part of `page` under `heading`, up to the next heading of its level."""
    return page.split(heading, 1)[1].split(f"\n{heading.split()[0]} ", 1)[0]


def test_the_task_page_shows_each_model_s_spread_and_the_ranking_across_templates(sweep):
    records, rows, root = sweep
    published = published_rows(published_scores())
    page = pages.landing_page(NLI, records, rows, published, root)
    shown = section(page, "### Sensitivity to the prompt\n")
    (found,) = sweeps(NLI, rows)
    for spread in found.spreads:
        line = next(x for x in shown.splitlines() if f"`{spread.model}`" in x)
        after = shown.split(line + "\n", 1)[1].splitlines()
        cells = [c.strip(" -*") for c in after[:6]]
        assert cells[:5] == [
            "Accuracy",
            "3 templates, 6 runs",
            f"{spread.low:.2f}",
            f"{spread.median:.2f}",
            f"{spread.high:.2f}",
        ]
        for t in spread.templates:
            assert f"{t.template} {t.mean:.2f} ({interval_text(t.interval)})" in cells[5]
    assert "- 2 of 3 (brief, standard)\n  - 1 of 3 (reworded)\n  - 0 of 3\n  - no" in shown
    figure = sensitivity_figure_path(NLI).name
    assert f"{figure}\n:alt: {NLI.title}: each prompt template's dev score" in shown


def test_the_results_page_has_the_section_and_names_tasks_without_a_sweep(sweep):
    records, _, root = sweep
    page = results_page.render(records, root)
    shown = section(page, "## Sensitivity to the prompt\n")
    assert "2 of 3 (brief, standard)" in page.split(f"### {NLI.title}\n", 1)[1]
    assert "No sweep over prompt templates yet for ynat, sts, ner, re, dp, mrc, wos." in shown
    assert "No sweep over the task's prompt templates yet" in pages.landing_page(
        NLI, [], [], [], root
    )


def test_the_figure_is_drawn_from_the_sweep_and_the_same_each_time(sweep, tmp_path):
    records, rows, root = sweep
    (found,) = sweeps(NLI, rows)
    first, again, fewer = (tmp_path / f"{name}.svg" for name in ("first", "again", "fewer"))
    result_figures.sensitivity_figure(NLI, [found], first)
    result_figures.sensitivity_figure(NLI, [found], again)
    assert first.read_bytes() == again.read_bytes()
    assert first.read_text().startswith("<?xml")
    two = [r for r in records if "template=reworded" not in r.config]
    (without,) = sweeps(NLI, reproduced_rows(two, root))
    result_figures.sensitivity_figure(NLI, [without], fewer)
    assert fewer.read_bytes() != first.read_bytes()
