"""The book's Sphinx hooks: launch buttons that open notebooks/<task>.ipynb (a prompted run's,
by its record in the report's index of the run pages, notebooks/prompted.ipynb), and exercise
labels made unique per executed run."""

import json
import shutil
from dataclasses import asdict
from types import SimpleNamespace

from kluebook.book.run_index import INDEX, PageRun
from kluebook.book.sphinx_hooks import launch_links, point_launch_buttons, run_page_labels, task_of
from kluebook.common.paths import CHECKOUT
from kluebook.methods.fine_tuned import FINE_TUNED
from kluebook.methods.prompted import PROMPTED

THEME = {
    "repository_url": "https://github.com/kluebook/kluebook",
    "repository_branch": "main",
    "launch_buttons": {
        "notebook_interface": "jupyterlab",
        "binderhub_url": "https://mybinder.org",
        "colab_url": "https://colab.research.google.com",
    },
}


def test_pages_of_a_task_are_its_runs_and_its_methods_page():
    assert task_of("book/runs/ynat/smoke-kluebook--tiny-roberta-seed1") == "ynat"
    assert task_of("book/_generated/methods/wos") == "wos"
    assert task_of("book/results") is None
    assert task_of("book/intro") is None


def test_links_open_the_source_notebook_on_binder_and_colab():
    links = {b["text"]: b["url"] for b in launch_links(THEME, "notebooks/ynat.ipynb")}
    assert links == {
        "Binder": "https://mybinder.org/v2/gh/kluebook/kluebook/main"
        "?urlpath=lab/tree/notebooks/ynat.ipynb",
        "Colab": "https://colab.research.google.com/github/kluebook/kluebook/blob/main/"
        "notebooks/ynat.ipynb",
    }
    assert launch_links({**THEME, "repository_url": "https://example.org/x/y"}, "n.ipynb") == []


def page(pagename, buttons, srcdir=CHECKOUT):
    app = SimpleNamespace(srcdir=str(srcdir), config=SimpleNamespace(html_theme_options=THEME))
    context = {"header_buttons": buttons}
    point_launch_buttons(app, pagename, "page.html", context, None)
    return context["header_buttons"]


def test_the_theme_links_of_a_run_page_are_replaced(tmp_path):
    theirs = {"label": "launch-buttons", "buttons": [{"url": "book/runs/ynat/x.ipynb"}]}
    other = {"label": "download-buttons"}
    buttons = page("book/runs/ynat/smoke-x-seed1", [theirs, other])
    assert buttons[1:] == [other]
    assert [b["url"].endswith("notebooks/ynat.ipynb") for b in buttons[0]["buttons"]] == [1, 1]
    # A task without a notebook in the book's sources gets no launch buttons at all.
    assert page("book/runs/toy/smoke-x-seed1", [theirs, other], tmp_path) == [other]
    # Other pages are left alone.
    assert page("book/results", [other]) == [other]


def test_a_prompted_run_page_opens_the_prompted_notebook(tmp_path):
    """The prompted notebook made a prompted run, whatever its task: its buttons open it. Which
    runs are prompted, the records say (the report's index), not the pages' names."""
    shutil.copytree(CHECKOUT / "notebooks", tmp_path / "notebooks")
    runs = {
        "book/runs/nli/smoke-kluebook--tiny-qwen3-prompted,dev_limit=20,shots=5-seed1": PROMPTED,
        "book/runs/nli/smoke-kluebook--tiny-qwen3-prompted-seed2": PROMPTED,
        "book/runs/nli/smoke-a-page-named-anyhow-seed1": PROMPTED,
        "book/runs/nli/smoke-kluebook--tiny-roberta-seed1": FINE_TUNED,
        "book/runs/nli/smoke-a-model-named-prompted-seed1": FINE_TUNED,
    }
    (tmp_path / INDEX).parent.mkdir(parents=True)
    index = {name: asdict(PageRun("nli", "smoke", method)) for name, method in runs.items()}
    (tmp_path / INDEX).write_text(json.dumps(index), encoding="utf-8")
    for name, method in runs.items():
        (group,) = page(name, [], tmp_path)
        notebook = "prompted" if method == PROMPTED else "nli"
        assert all(b["url"].endswith(f"notebooks/{notebook}.ipynb") for b in group["buttons"])


def test_a_methods_page_gets_launch_buttons():
    (group,) = page("book/_generated/methods/dp", [])
    assert group["label"] == "launch-buttons"
    assert all("notebooks/dp.ipynb" in b["url"] for b in group["buttons"])


def test_exercise_labels_are_unique_to_each_run_page():
    source = '":label: ex-ynat-1\\n",\n"```{solution-start} ex-ynat-1\\n", "ex-ynat-12"'
    first = run_page_labels("book/runs/ynat/smoke-a-seed1", source)
    second = run_page_labels("book/runs/ynat/smoke-a-seed2", source)
    assert first != second and "ex-ynat-1\\n" in first
    assert first.count("-ex-ynat-1\\n") == 2 and "-ex-ynat-12" in first
    prefix = first.split(":label: ")[1].split("-ex-")[0]
    assert first.count(prefix) == 3
    assert run_page_labels("book/_generated/methods/ynat", source) == source
    copied = run_page_labels("book/runs/toy/smoke-a-seed1", source)  # a copy of the YNAT folder
    assert copied != source and copied.count("-ex-ynat-1\\n") == 2
