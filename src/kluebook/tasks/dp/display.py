"""The dependency-tree arc diagram of the parsing notebook. As for `kluebook.common.plots`, the
first sentence of the docstring says what the figure shows: the site gives it to the figure as
its text alternative (kluebook.book.sphinx_extension, `figure_alt`)."""

from collections.abc import Sequence

import matplotlib.pyplot as plt

from kluebook.common import plots  # noqa: F401  (registers the Hangul font)


def _arc(ax, start: float, end: float, side: int, colour: str, label: str) -> float:
    """A half-ellipse from word `start` to word `end`, above (side 1) or below (side -1), with
    an arrow head at `end` and the label at the top; returns its height."""
    from matplotlib.patches import Arc

    width = abs(end - start)
    height = 0.6 + 0.35 * width
    centre = (start + end) / 2
    theta = (0, 180) if side > 0 else (180, 360)
    ax.add_patch(
        Arc(
            (centre, 0),
            width,
            2 * height,
            theta1=theta[0],
            theta2=theta[1],
            color=colour,
            linewidth=1.3,
        )
    )
    ax.annotate(
        "",
        xy=(end, 0.08 * side),
        xytext=(end, 0.35 * side),
        arrowprops={"arrowstyle": "->", "color": colour, "linewidth": 1.2},
    )
    ax.text(
        centre,
        side * (height + 0.08),
        label,
        ha="center",
        va="bottom" if side > 0 else "top",
        fontsize=8,
        color=colour,
    )
    return height


def dependency_arcs(
    words: Sequence[str],
    heads: Sequence[int],
    deprels: Sequence[str],
    predicted_heads: Sequence[int] | None = None,
    predicted_deprels: Sequence[str] | None = None,
    title: str = "",
):
    """An arc diagram of a dependency tree: gold arcs above the words, predicted ones below.

    `heads` are 1-based (0 = root); each arc points from the head to its dependent and carries
    the label. A predicted arc is green when head and label are right, orange when only the head
    is, red when the head is wrong.
    """
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(words)), 4.2))
    tallest = 1.0

    def draw(arc_heads, arc_labels, side, colours):
        nonlocal tallest
        for dependent, (head, label) in enumerate(zip(arc_heads, arc_labels, strict=True), 1):
            colour = colours(dependent, head, label)
            if head == 0:
                top = 0.6 + 0.35 * len(words) / 2
                ax.annotate(
                    "",
                    xy=(dependent, 0.08 * side),
                    xytext=(dependent, side * top),
                    arrowprops={"arrowstyle": "->", "color": colour, "linewidth": 1.2},
                )
                ax.text(
                    dependent,
                    side * (top + 0.08),
                    f"ROOT·{label}",
                    ha="center",
                    va="bottom" if side > 0 else "top",
                    fontsize=8,
                    color=colour,
                )
                tallest = max(tallest, top)
            else:
                tallest = max(tallest, _arc(ax, head, dependent, side, colour, label))

    draw(heads, deprels, 1, lambda *_: "tab:blue")
    if predicted_heads is not None and predicted_deprels is not None:

        def verdict(dependent, head, label):
            if head != heads[dependent - 1]:
                return "tab:red"
            return "tab:green" if label == deprels[dependent - 1] else "tab:orange"

        draw(predicted_heads, predicted_deprels, -1, verdict)
    for position, word in enumerate(words, 1):
        ax.text(
            position,
            0,
            word,
            ha="center",
            va="center",
            fontsize=10,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1},
        )
    below = predicted_heads is not None
    ax.set_xlim(0.4, len(words) + 0.6)
    ax.set_ylim(-(tallest + 0.6) if below else -0.5, tallest + 0.6)
    ax.axis("off")
    if below:
        ax.text(0.45, tallest * 0.9, "gold", fontsize=9, color="tab:blue")
        ax.text(0.45, -tallest * 0.9, "predicted", fontsize=9, color="tab:gray")
    ax.set_title(title)
    fig.tight_layout()
    return fig
