"""The lab of book/course-prompted.md, as a class runs it: the page's three commands in a
scratch book (a fine-tuned and two prompted NLI runs on the same dev items, `kluebook
compare` between them), then the page's Python, its set-up block and the solutions of its
exercises, in that book; their answers are checked against the runs' records and against
what `kluebook compare` prints."""

import json
import re
import shlex
from collections import Counter

import pytest

from kluebook.common.paths import CHECKOUT

pytestmark = pytest.mark.slow
PAGE = CHECKOUT / "book" / "course-prompted.md"
NAMES = ("fine-tuned", "prompted, 0 shots", "prompted, 5 shots")
# What the test reads back of the page's Python: the variables its solutions leave.
ANSWERS = """
import json
print("ANSWERS " + json.dumps({
    "gold": gold,
    "gold_labels": gold_labels,
    "predicted": predicted,
    "configurations": configurations,
    "answers": answers.to_dict(orient="index"),
    "discordant": discordant,
    "by_label": by_label.to_dict(orient="index"),
    "examples": examples.to_dict(orient="records"),
}, ensure_ascii=False))
"""


def page_blocks(language: str) -> list[str]:
    """The page's fenced code blocks of one language, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", PAGE.read_text(encoding="utf-8"), re.S | re.M)


@pytest.fixture(scope="module")
def lab(tmp_path_factory, new_book, kluebook):
    """A book root where the page's commands ran: (root, the comparison they printed, the
    answers of the page's Python)."""
    root = new_book(tmp_path_factory.mktemp("book"))
    (commands,) = page_blocks("bash")
    printed = []
    for line in commands.strip().splitlines():
        ran = kluebook(root, *shlex.split(line)[1:])
        assert ran.returncode == 0, f"{line}\n{ran.stdout[-2000:]}{ran.stderr[-2000:]}"
        printed.append(ran.stdout)
    code = "\n".join(page_blocks("python")) + ANSWERS
    solved = kluebook.python(root, code)
    assert solved.returncode == 0, solved.stderr[-3000:]
    (line,) = [line for line in solved.stdout.splitlines() if line.startswith("ANSWERS ")]
    return root, printed[-1], json.loads(line.removeprefix("ANSWERS "))


def accuracy_difference(compared: str) -> float:
    """The A - B of the accuracy row of `kluebook compare`'s table."""
    (row,) = [line for line in compared.splitlines() if line.startswith("Accuracy")]
    return float(row.split()[3])


def test_the_page_compares_a_fine_tuned_and_a_prompted_run_of_the_same_items(lab):
    _, compared, answers = lab
    fine_tuned, prompted = answers["configurations"]["fine-tuned"], "prompted,dev_limit=0,shots=0"
    assert f"nli: A = {fine_tuned} (1 seed), B = {prompted} (1 seed)" in compared
    items = len(answers["gold_labels"])
    assert items == 200 and f"paired bootstrap over {items} sentence pairs" in compared
    (row,) = [line for line in compared.splitlines() if line.startswith("Accuracy")]
    assert row.endswith("A is better"), compared  # the trained model, on generated pairs


def test_exercise_1_computes_each_runs_accuracy_and_its_most_frequent_answer(lab):
    _, _, answers = lab
    gold = answers["gold_labels"]
    for name in NAMES:
        labels = answers["predicted"][name]
        row = answers["answers"][name]
        hits = sum(p == g for p, g in zip(labels, gold, strict=True))
        assert row["accuracy"] == pytest.approx(100 * hits / len(gold))
        assert row["accuracy"] == pytest.approx(row["recorded accuracy"])
        favourite, count = Counter(labels).most_common(1)[0]
        assert row["most answered"] == favourite
        assert row["its share of the answers"] == pytest.approx(100 * count / len(gold))
        assert row["its share of the gold labels"] == pytest.approx(
            100 * gold.count(favourite) / len(gold)
        )
        if name != "fine-tuned":  # the solution's reading: one answer to most items
            assert row["its share of the answers"] > 50
            assert abs(row["accuracy"] - row["its share of the gold labels"]) < 5
    assert max(Counter(answers["predicted"]["fine-tuned"]).values()) < 0.4 * len(gold)


def test_exercise_2_counts_the_discordant_items_behind_compares_difference(lab, kluebook):
    root, _, answers = lab
    labels = answers["configurations"]
    for pair, row in answers["discordant"].items():
        a, b = pair.split(" vs ")
        compared = kluebook(root, "compare", labels[a], labels[b], "--task", "nli")
        assert compared.returncode == 0, compared.stderr
        assert row["A - B"] == pytest.approx(accuracy_difference(compared.stdout), abs=0.005)
        gold = answers["gold_labels"]
        right = {
            name: [p == g for p, g in zip(answers["predicted"][name], gold, strict=True)]
            for name in (a, b)
        }
        only_a = sum(x and not y for x, y in zip(right[a], right[b], strict=True))
        assert (row["only A right"], row["only B right"]) == (
            only_a,
            only_a - round(row["A - B"] * len(gold) / 100),
        )
    assert len(answers["discordant"]) == 3
    shots = answers["discordant"]["prompted, 5 shots vs prompted, 0 shots"]
    assert shots["only A right"] + shots["only B right"] > 0.25 * len(answers["gold_labels"])
    compared = kluebook(
        root, "compare", labels["prompted, 5 shots"], labels["prompted, 0 shots"], "--task", "nli"
    )
    assert "not distinguishable with this dev set" in compared.stdout
    # Its 2x2 of items right counts the exercise's discordant items.
    counts = compared.stdout.rstrip().splitlines()[-1].split(":")[1].split()
    assert (int(counts[1]), int(counts[2])) == (shots["only A right"], shots["only B right"])


def test_exercise_3_crosses_the_gold_labels_with_who_got_each_item_right(lab):
    _, _, answers = lab
    gold = answers["gold_labels"]
    table = answers["by_label"]
    assert {label: sum(row.values()) for label, row in table.items()} == Counter(gold)
    tuned_only = answers["discordant"]["fine-tuned vs prompted, 5 shots"]["only A right"]
    assert sum(row.get("fine-tuned only", 0) for row in table.values()) == tuned_only
    favourite = Counter(answers["predicted"]["prompted, 5 shots"]).most_common(1)[0][0]
    wins = [row.get("both right", 0) + row.get("prompted only", 0) for row in table.values()]
    assert sum(wins) == table[favourite].get("both right", 0) + table[favourite].get(
        "prompted only", 0
    )  # the solution's reading: its wins are on the label it answers most
    examples = answers["examples"]
    assert len(examples) == min(2, tuned_only)
    items = [(item["premise"], item["hypothesis"]) for item in answers["gold"]]
    for example in examples:
        at = items.index((example["premise"], example["hypothesis"]))
        assert example["gold"] == gold[at] == answers["predicted"]["fine-tuned"][at]
        assert example["prompted"] == answers["predicted"]["prompted, 5 shots"][at] != gold[at]


@pytest.fixture(scope="module")
def site(lab, kluebook):
    """The book built from the lab's runs (`kluebook book --no-run`): its HTML folder."""
    root = lab[0]
    built = kluebook(root, "book", "--no-run", "--path-output", str(root / "site"))
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return root / "site" / "_build" / "html"


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def block(html: str, kind: str) -> str:
    return html.split(f'<tbody class="{kind}">')[1].split("</tbody>")[0]


def test_the_book_shows_the_prompted_runs_apart_labelled_with_their_shots(site):
    results = (site / "book" / "results.html").read_text()
    task = (site / "book" / "_generated" / "tasks" / "nli.html").read_text()
    for page in (results, task):
        assert "tiny-qwen3" not in block(page, "pipeline-check")
        prompted = block(page, "prompted-pipeline-check")
        assert "causal LM prompted on generated data, not a result" in text_of(prompted)
        for shots in (0, 5):
            assert f"prompted, {shots} shots, dev_limit=0" in prompted
        assert prompted.count('title="95% bootstrap interval ') == 2  # as the fine-tuned row
        assert "<strong>" not in prompted
    runs = text_of(task.split('id="runs"')[1])
    assert "kluebook/tiny-qwen3 (prompted, 5 shots, dev_limit=0)" in runs
    assert re.search(r"Accuracy \d+\.\d\d \(95% CI [\d.]+–[\d.]+\); 0 unparsable", runs)
    assert "announcement" in results and "fine-tuned or prompted on generated data" in results
    (page,) = (site / "book" / "runs" / "nli").glob("*prompted,dev_limit=0,shots=5-seed1.html")
    run = text_of(page.read_text())
    assert "This run prompted a tiny randomly initialised causal LM" in run
    assert (
        "prompted, 5 shots with the template standard (demonstrations drawn with seed 1), "
        "answered by ranking" in run
    )


def test_the_methods_page_and_the_lab_page_are_in_the_book(site):
    methods = (site / "book" / "_generated" / "methods" / "nli.html").read_text()
    section = methods.split('id="prompted-evaluation"')[1].split("</section>")[0]
    assert 'href="../../prompting.html#prompting"' in section
    assert "Answer mode: ranking." in text_of(section) and 'lang="ko"' in section
    lab = (site / "book" / "course-prompted.html").read_text()
    assert lab.count('class="exercise admonition"') == 3
    assert lab.count('class="solution dropdown admonition"') == 3
    assert lab.count("<table") == lab.count("<caption") == 2 and 'lang="ko"' in lab
