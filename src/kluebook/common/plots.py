"""The book's figures. Korean labels render with NanumGothic (shipped by koreanize-matplotlib).

The first sentence of each function's docstring says what its figure shows: the site gives it
to the figure as its text alternative (kluebook.book.sphinx_extension, `figure_alt`).
"""

from collections import Counter
from collections.abc import Sequence

import koreanize_matplotlib  # noqa: F401  (registers a Hangul font with matplotlib)
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd


def _show_once() -> None:
    """In a notebook's kernel, show the figure just drawn now (`plt.show()`, which closes it):
    left open until the cell ends, it would be drawn twice, by pyplot's redraw of every open
    figure and then as the image the notebook keeps, the first for nothing."""
    from IPython import get_ipython  # here: a kernel has it loaded already

    if get_ipython() is not None:
        plt.show()


def label_distribution(splits: dict[str, Sequence[str]], labels: Sequence[str], title: str = ""):
    """Side-by-side bars: the share of each label in each split."""
    frame = pd.DataFrame(
        {
            name: pd.Series(Counter(values)).reindex(labels, fill_value=0) / len(values)
            for name, values in splits.items()
        }
    )
    ax = frame.plot.bar(figsize=(7, 3.2), rot=0, width=0.8)
    ax.set_ylabel("share of examples")
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_title(title)
    ax.figure.tight_layout()
    _show_once()
    return ax


def training_curve(history: pd.DataFrame, metric: str, metric_label: str):
    """Training loss and the dev metric against the epoch, on twin axes."""
    fig, loss_ax = plt.subplots(figsize=(7, 3.2))
    losses = history.dropna(subset=["loss"]) if "loss" in history else history.iloc[0:0]
    loss_ax.plot(losses["epoch"], losses["loss"], color="tab:gray", label="training loss")
    loss_ax.set_xlabel("epoch")
    loss_ax.set_ylabel("training loss")
    metric_ax = loss_ax.twinx()
    evaluations = history.dropna(subset=[f"eval_{metric}"])
    metric_ax.plot(
        evaluations["epoch"],
        evaluations[f"eval_{metric}"],
        marker="o",
        color="tab:blue",
        label=f"dev {metric_label}",
    )
    best = evaluations.loc[evaluations[f"eval_{metric}"].idxmax()]
    metric_ax.scatter(
        [best["epoch"]],
        [best[f"eval_{metric}"]],
        s=140,
        facecolors="none",
        edgecolors="tab:red",
        label="best checkpoint (kept)",
    )
    metric_ax.set_ylabel(f"dev {metric_label}")
    fig.legend(loc="lower center", ncol=3, bbox_to_anchor=(0.5, 1.0), frameon=False)
    fig.tight_layout()
    _show_once()
    return fig


def confusion_matrix(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str]):
    """Row-normalised confusion matrix: each row shows where one gold class went."""
    # Imported here: sklearn (and scipy with it) would cost every kernel seconds of start-up,
    # and some tasks draw neither this figure nor the PR curves.
    from sklearn.metrics import ConfusionMatrixDisplay

    fig, ax = plt.subplots(figsize=(6, 5))
    ConfusionMatrixDisplay.from_predictions(
        gold,
        pred,
        labels=list(labels),
        normalize="true",
        values_format=".0%",
        cmap="Blues",
        colorbar=False,
        ax=ax,
        xticks_rotation=45,
    )
    ax.set_xlabel("predicted")
    ax.set_ylabel("gold")
    fig.tight_layout()
    _show_once()
    return fig


def score_distribution(
    splits: dict[str, Sequence[float]], threshold: float | None = None, title: str = ""
):
    """Overlaid histograms of a real-valued score in each split, with the threshold if given."""
    fig, ax = plt.subplots(figsize=(7, 3.2))
    values = [v for scores in splits.values() for v in scores]
    bins = np.linspace(min(values), max(values), 21) if values else 20
    for name, scores in splits.items():
        weights = np.full(len(scores), 1 / len(scores)) if len(scores) else None
        ax.hist(scores, bins=bins, weights=weights, alpha=0.55, label=name)
    if threshold is not None:
        ax.axvline(threshold, color="tab:red", linestyle="--", label=f"threshold {threshold:g}")
    ax.set_xlabel("score")
    ax.set_ylabel("share of examples")
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.legend(frameon=False)
    ax.set_title(title)
    fig.tight_layout()
    _show_once()
    return fig


def prediction_scatter(
    gold: Sequence[float],
    pred: Sequence[float],
    threshold: float | None = None,
    groups: Sequence[str] | None = None,
    title: str = "",
):
    """Predicted against gold scores, one dot per example, with the diagonal y = x.

    With a threshold, its lines on both axes cut the plane into the true and false positives and
    negatives of the thresholded F1.
    """
    fig, ax = plt.subplots(figsize=(5.5, 5))
    frame = pd.DataFrame({"gold": gold, "pred": pred, "group": groups or ["all"] * len(gold)})
    for name, part in frame.groupby("group", sort=True):
        ax.scatter(part["gold"], part["pred"], s=12, alpha=0.6, label=name)
    low = float(min(frame["gold"].min(), frame["pred"].min()))
    high = float(max(frame["gold"].max(), frame["pred"].max()))
    ax.plot([low, high], [low, high], color="tab:gray", linewidth=1, label="y = x")
    if threshold is not None:
        ax.axvline(threshold, color="tab:red", linestyle="--", linewidth=1)
        ax.axhline(threshold, color="tab:red", linestyle="--", linewidth=1)
    ax.set_xlabel("gold score")
    ax.set_ylabel("predicted score")
    if groups is not None:
        ax.legend(frameon=False, fontsize="small", markerscale=1.5)
    ax.set_title(title)
    fig.tight_layout()
    _show_once()
    return fig


def precision_recall_curves(
    gold: Sequence[str], probs, labels: Sequence[str], classes: Sequence[str]
):
    """One-vs-rest precision-recall curves of some classes, each with its area in the legend.

    `probs` is (examples, labels). The areas are by the trapezoidal rule, as in the official AUPRC.
    """
    from sklearn.metrics import auc, precision_recall_curve  # here: see `confusion_matrix`

    scores = np.asarray(probs, dtype=float)
    gold_array = np.asarray(gold)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for name in classes:
        column = list(labels).index(name)
        precision, recall, _ = precision_recall_curve(gold_array == name, scores[:, column])
        area = auc(recall, precision)
        ax.plot(recall, precision, label=f"{name} (area {100 * area:.1f})")
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.legend(frameon=False, fontsize="small", loc="lower left")
    fig.tight_layout()
    _show_once()
    return fig


def label_distribution_barh(
    splits: dict[str, Sequence[str]], labels: Sequence[str], title: str = ""
):
    """Horizontal bars: the share of each label in each split, one group of bars per label.

    For label sets too long for `label_distribution`.
    """
    frame = pd.DataFrame(
        {
            name: pd.Series(Counter(values)).reindex(labels, fill_value=0) / len(values)
            for name, values in splits.items()
        }
    )
    ax = frame.iloc[::-1].plot.barh(figsize=(7, 0.22 * len(labels) + 1.2), width=0.8)
    ax.set_xlabel("share of examples")
    ax.xaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.legend(frameon=False, loc="lower right")
    ax.set_title(title)
    ax.figure.tight_layout()
    _show_once()
    return ax


def reliability_diagram(curves: dict[str, Sequence[dict]], title: str = ""):
    """Reliability diagram: each confidence bin's accuracy against its mean confidence, one line
    per ranking, with the diagonal of perfect calibration.

    `curves` maps a ranking's name to its bins (`count`, `confidence`, `accuracy`; empty bins
    are left out), as a run records them.
    """
    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot([0, 1], [0, 1], color="tab:gray", linewidth=1, linestyle="--", label="calibrated")
    for (name, bins), marker in zip(curves.items(), "osD^v", strict=False):
        shown = [b for b in bins if b["count"]]
        ax.plot(
            [b["confidence"] for b in shown],
            [b["accuracy"] for b in shown],
            marker=marker,
            label=name,
        )
    ax.set_xlabel("confidence (probability of the choice ranked first)")
    ax.set_ylabel("accuracy")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.legend(frameon=False, loc="upper left")
    ax.set_title(title)
    fig.tight_layout()
    _show_once()
    return fig


def scores_by(scores: pd.DataFrame, xlabel: str, title: str = "", kind: str = "bar"):
    """Dev scores (×100) in groups of examples: one bar, or line, per metric in each group.

    `scores` has a row per group (in order) and a column per metric; `kind` is "bar" or "line".
    """
    if kind == "bar":
        ax = scores.plot.bar(figsize=(7, 3.2), rot=0, ylim=(0, 100), title=title)
    else:
        ax = scores.plot.line(marker="o", figsize=(7, 3.2), ylim=(0, 100), title=title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("score (×100)")
    ax.figure.tight_layout()
    _show_once()
    return ax
