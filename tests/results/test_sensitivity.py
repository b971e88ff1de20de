"""The sensitivity of prompted scores to the prompt: a sweep over templates and demonstration
seeds gives each model its spread (lowest, median, highest run; each template's mean with its
interval), and two models whose ranking flips across templates are said to be ranked one way
on some templates and the other way on the rest, each verdict from the paired comparison."""

import statistics

import pytest
from support.template_sweep import NLI, SEEDS, TEMPLATES, template_sweep

from kluebook.results.aggregation import reproduced_rows
from kluebook.results.sensitivity import BETTER, WORSE, sweeps


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    root = tmp_path_factory.mktemp("sweep")
    records = template_sweep(root)
    (found,) = sweeps(NLI, reproduced_rows(records, root))
    return found, records, root


def test_each_model_s_spread_is_over_every_template_and_seed(sweep):
    found, records, _ = sweep
    assert found.setting == "prompted, 5 shots" and found.profile == "smoke"
    spread = next(s for s in found.spreads if s.model == "org/model-a")
    runs = [r.outcome.metrics["accuracy"] for r in records if r.model == "org/model-a"]
    assert len(runs) == len(TEMPLATES) * len(SEEDS)
    assert (spread.low, spread.median, spread.high) == (
        min(runs),
        statistics.median(runs),
        max(runs),
    )
    assert [t.template for t in spread.templates] == sorted(TEMPLATES)
    for score in spread.templates:
        assert score.seeds == list(SEEDS) and len(score.values) == len(SEEDS)
        assert score.interval is not None and score.interval.low <= score.mean
        assert score.mean <= score.interval.high and not score.stale
    worst = next(t for t in spread.templates if t.template == "reworded")
    assert worst.interval.high < min(t.interval.low for t in spread.templates if t is not worst)


def test_a_ranking_that_flips_across_templates_is_said_not_to_hold(sweep):
    found, _, _ = sweep
    (ranking,) = [r for r in found.rankings if r.metric == "accuracy"]
    assert (ranking.a, ranking.b) == ("org/model-a", "org/model-b")
    assert ranking.templates_where(BETTER) == ["brief", "standard"]
    assert ranking.templates_where(WORSE) == ["reworded"]
    assert ranking.share == pytest.approx(2 / 3)
    assert not ranking.holds


def test_a_ranking_that_holds_on_every_template_is_said_to(sweep):
    _, records, root = sweep
    two = [r for r in records if "template=reworded" not in r.config]
    (found,) = sweeps(NLI, reproduced_rows(two, root))
    (ranking,) = found.rankings
    assert ranking.templates_where(BETTER) == ["brief", "standard"]
    assert ranking.share == 1.0 and ranking.holds


def test_rows_that_name_no_template_are_no_sweep(sweep):
    _, records, _ = sweep
    standard = [r for r in records if "template=standard" in r.config]
    plain = [r.model_copy(update={"config": "prompted,shots=5"}) for r in standard]
    assert sweeps(NLI, reproduced_rows(plain)) == []
    one_template = [r for r in records if "template=brief" in r.config]
    assert sweeps(NLI, reproduced_rows(one_template)) == []
