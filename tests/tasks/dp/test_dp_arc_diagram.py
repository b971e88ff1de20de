from matplotlib.colors import to_hex
from matplotlib.patches import Arc

from kluebook.tasks.dp import display


def arcs(fig) -> list[Arc]:
    return [p for p in fig.axes[0].patches if isinstance(p, Arc)]


def test_gold_arcs_above_and_predicted_arcs_below_coloured_by_verdict():
    words = ["민수가", "빵을", "먹었다."]
    fig = display.dependency_arcs(
        words,
        heads=[3, 3, 0],
        deprels=["NP_SBJ", "NP_OBJ", "VP"],
        predicted_heads=[3, 1, 0],
        predicted_deprels=["NP_OBJ", "NP_OBJ", "VP"],
    )
    drawn = arcs(fig)
    # Two non-root arcs in gold, two in the prediction; the roots are drawn as arrows.
    assert len(drawn) == 4
    above = [a for a in drawn if a.theta1 == 0]
    below = [a for a in drawn if a.theta1 == 180]
    assert {to_hex(a.get_edgecolor()) for a in above} == {to_hex("tab:blue")}
    # 민수가 -> 먹었다: right head, wrong label (orange); 빵을 -> 민수가: wrong head (red).
    assert {to_hex(a.get_edgecolor()) for a in below} == {to_hex("tab:orange"), to_hex("tab:red")}
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert all(word in texts for word in words)
    assert texts.count("ROOT·VP") == 2


def test_gold_tree_alone():
    fig = display.dependency_arcs(["가", "나"], heads=[2, 0], deprels=["NP_SBJ", "VP"])
    assert len(arcs(fig)) == 1
