"""How much a prompted score moves with the prompt, read off the rows of a sweep over templates
(`--set template=NAME`, the `prompt-sensitivity` sweep): for each model, the spread of its
scores over templates and demonstration seeds (the lowest, median and highest run, and each
template's mean with its interval), and for two models, whether their ranking holds across the
templates (on how many of them the paired comparison of `kluebook compare` says A is better).

A row whose configuration names a template is one template's runs, its seeds pooled
(`aggregation.reproduced_rows`); the rows of one sweep share everything else (profile, data,
split, shots and the other settings). A prompted row that names no template is not part of a
sweep, and is left out."""

import statistics
from collections import defaultdict
from dataclasses import dataclass

from kluebook.methods.registry import method_named
from kluebook.recording.records import Interval
from kluebook.results.aggregation import Row, configuration_text, model_order
from kluebook.scoring import bootstrap
from kluebook.tasks import Task

TEMPLATE = "template="  # how a configuration label names its template
BETTER = "A is better"
WORSE = "B is better"


@dataclass(frozen=True)
class TemplateScore:
    """One template's runs of a model: each demonstration seed's score, their mean and the
    interval of the mean (the dev set and the seeds resampled together)."""

    template: str
    seeds: list[int]
    values: list[float]
    interval: Interval | None
    stale: str  # the inputs that changed since these runs were made ("" if current)

    @property
    def mean(self) -> float:
        return statistics.mean(self.values)


@dataclass(frozen=True)
class Spread:
    """One model's scores on one metric over the templates of a sweep, each template's seeds
    kept apart: the lowest, median and highest run of all of them."""

    model: str
    metric: str
    templates: list[TemplateScore]

    @property
    def runs(self) -> list[float]:
        return [v for t in self.templates for v in t.values]

    @property
    def low(self) -> float:
        return min(self.runs)

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    @property
    def high(self) -> float:
        return max(self.runs)


@dataclass(frozen=True)
class Ranking:
    """Two models on one metric, template by template: the verdict of the paired comparison
    of A - B on each template both were run with (`bootstrap.paired_difference`)."""

    a: str
    b: str
    metric: str
    verdicts: dict[str, str]  # template -> verdict, in the templates' order

    def templates_where(self, verdict: str) -> list[str]:
        return [t for t, v in self.verdicts.items() if v == verdict]

    @property
    def share(self) -> float:
        """The share of the templates on which A beats B."""
        return len(self.templates_where(BETTER)) / len(self.verdicts)

    @property
    def holds(self) -> bool:
        """Whether one model beats the other on every template."""
        return set(self.verdicts.values()) in ({BETTER}, {WORSE})


@dataclass(frozen=True)
class Sweep:
    """The rows of one sweep over templates on one task: how they were made apart from the
    template and the model, each model's spread and each pair's ranking, per metric."""

    task: str
    profile: str
    split: str
    setting: str  # the configuration apart from the template, as pages name it
    spreads: list[Spread]
    rankings: list[Ranking]


def row_template(row: Row) -> str | None:
    """The template a prompted row's configuration names; None where it names none."""
    if not method_named(row.method).templated:
        return None
    named = [p.removeprefix(TEMPLATE) for p in row.config.split(",") if p.startswith(TEMPLATE)]
    return named[0] if named else None


def _setting(row: Row) -> str:
    """A row's configuration label without its template."""
    return ",".join(p for p in row.config.split(",") if not p.startswith(TEMPLATE))


def sweeps(task: Task, rows: list[Row]) -> list[Sweep]:
    """The sweeps over templates among `rows` on `task` with at least two templates of one
    model, in the rows' order."""
    groups: dict[tuple, dict[str, dict[str, Row]]] = defaultdict(lambda: defaultdict(dict))
    for row in rows:
        template = row_template(row)
        if template is not None and any(key[0] == task.name for key in row.cells):
            key = (row.method, row.profile, row.data_source, row.split, row.shots, _setting(row))
            groups[key][row.model][template] = row
    found = []
    for (method, profile, _, split, shots, setting), models in groups.items():
        if max(len(t) for t in models.values()) < 2:
            continue
        ordered = sorted(models, key=model_order)
        spreads, rankings = [], []
        for metric in task.metrics:
            key = (task.name, metric.key)
            for model in ordered:
                scores = _scores(models[model], key)
                if scores:
                    spreads.append(Spread(model, metric.key, scores))
            for i, a in enumerate(ordered):
                for b in ordered[i + 1 :]:
                    ranking = _ranking(models[a], models[b], a, b, key)
                    if ranking is not None:
                        rankings.append(ranking)
        text = configuration_text(method, setting, shots)
        found.append(Sweep(task.name, profile, split, text, spreads, rankings))
    return found


def _scores(templates: dict[str, Row], key: tuple[str, str]) -> list[TemplateScore]:
    scores = []
    for name, row in sorted(templates.items()):
        cell = row.cells.get(key)
        if cell is not None:
            seeds = [seed for seed, _ in cell.runs]
            scores.append(TemplateScore(name, seeds, cell.values, cell.interval, cell.stale))
    return scores


def _ranking(a: dict[str, Row], b: dict[str, Row], name_a: str, name_b: str, key) -> Ranking | None:
    """A's and B's verdicts on each template both have with resampled values (None if none)."""
    verdicts = {}
    for template in sorted(set(a) & set(b)):
        first, second = a[template].cells.get(key), b[template].cells.get(key)
        if not (first and second and first.seed_replicates and second.seed_replicates):
            continue
        found = bootstrap.paired_difference(
            key[1], first.values, second.values, first.seed_replicates, second.seed_replicates
        )
        verdicts[template] = found.verdict
    return Ranking(name_a, name_b, key[1], verdicts) if verdicts else None
