"""The book's figures. Korean labels render with NanumGothic (shipped by koreanize-matplotlib)."""

from collections import Counter
from collections.abc import Sequence

import koreanize_matplotlib  # noqa: F401  (registers a Hangul font with matplotlib)
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.metrics import ConfusionMatrixDisplay


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
    return fig


def confusion_matrix(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str]):
    """Row-normalised confusion matrix: each row shows where one gold class went."""
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
    return fig
