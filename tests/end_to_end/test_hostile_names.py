"""A book whose names were chosen by an attacker: every name is text on every page, and no name
reaches a file name or an address.

Three prompted runs of the tiny causal LM, on four dev items each: one of a local model whose
folder is named with markup, on NLI; one of that model on `wild` (a copy of NLI registered
through KLUEBOOK_TASKS_PATH, as a user's task is) with a template of its own whose file name is
markup, chosen with `--set template=…`; one answered by an OpenAI-compatible server that serves
the model under an id made of markup (`--models` names it so, and `/v1/models` reports it so), and
a fourth, in rank mode, that this server cannot answer, so that its error is on the pages too.
The names carry `<script>`, `<img src=x onerror=…>`, `"onmouseover=…`, a Markdown link to
`javascript:`, a MyST role and a `{raw} html` fence. The book is built (`kluebook book --no-run`)
and every page of the site is opened in headless Chromium: no dialog opens, no element, attribute
or link of the names exists, and the names are shown as the text they are, in the pages' titles,
headings, tables and navigation.

Needs Debian's `chromium` and the `playwright` package (no browser download), as
test_site_in_browser.py does, and the prompted extra (transformers serve, openai).
"""

import re
import shutil

import nbformat
import pytest
import yaml
from support.chromium import accessibility, chromium, require_chromium, visible, walk
from support.serving import CountingProxy

from kluebook.tasks import card_path, get_task, notebook_path, task_module

pytestmark = pytest.mark.slow

pytest.importorskip("openai", reason="the server backend needs the prompted extra")
pytest.importorskip("fastapi", reason="transformers serve needs the prompted extra")

# A legal folder name, a served model's id and a template's file name (no `/`, no `,`).
FOLDER = '<img src=x onerror=alert(1)> "onmouseover=alert(2) [x](javascript:alert(3))'
SERVED = "<script>alert(4)</script> {eval-rst}`.. raw:: html` ```{raw} html <b>served</b>"
TEMPLATE = '<img src=y onerror=alert(5)>[t](javascript:alert(6)) "onmouseover=alert(7) {raw}`html`'
SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._,=+-]*")
SMALL = ["--seeds", "1", "--set", "shots=0", "--set", "dev_limit=4", "--quiet"]
# What the names would leave on a page if they were read as markup.
INJECTED = """() => {
  const found = [];
  for (const e of document.querySelectorAll('*')) {
    for (const a of e.attributes) {
      if (a.name.startsWith('on') && /alert\\(/.test(a.value)) found.push(`${e.tagName} ${a.name}`);
    }
    const href = e.tagName === 'A' ? e.getAttribute('href') || '' : '';
    if (/^\\s*javascript:/i.test(href)) found.push(`link ${href}`);
    if (e.tagName === 'SCRIPT' && e.type !== 'application/json' && /alert\\(/.test(e.textContent))
      found.push('script');
    if (e.tagName === 'IMG' && /\\/(x|y)$/.test(e.src)) found.push(`img ${e.src}`);
    if (e.tagName === 'B' && e.textContent === 'served') found.push('raw html');
  }
  return found;
}"""


def wild_task(folder):
    """`wild`: a copy of NLI in a folder of extra tasks, with a template named `TEMPLATE`."""
    nli = get_task("nli")
    task = folder / "wild"
    shutil.copytree(nli.folder, task, ignore=shutil.ignore_patterns("__pycache__"))
    entry = yaml.safe_load((task / "task.yaml").read_text(encoding="utf-8"))
    files = {"train": "wild/wild_train.json", "dev": "wild/wild_dev.json"}
    entry.update(title="Wild inference (WILD)", order=9, files=files)
    (task / "task.yaml").write_text(yaml.safe_dump(entry, allow_unicode=True), encoding="utf-8")
    card = card_path(nli).read_text(encoding="utf-8").replace(nli.title, "Wild inference (WILD)", 1)
    (task / "README.md").write_text(card, encoding="utf-8")
    notebook = nbformat.read(notebook_path(nli), as_version=4)
    for cell in notebook.cells:
        cell.source = cell.source.replace('start_run("nli"', 'start_run("wild"')
    nbformat.write(notebook, task / "notebook.ipynb")
    shutil.copy(task / "prompts" / "standard.yaml", task / "prompts" / f"{TEMPLATE}.yaml")
    return folder


@pytest.fixture(scope="module")
def hostile_book(tmp_path_factory, new_book, kluebook):
    """The html folder of the book of the hostile runs, and its book root."""
    require_chromium()
    from kluebook.prompting import tiny_causal_lm
    from kluebook.prompting.local_server import TransformersServer

    tmp = tmp_path_factory.mktemp("hostile")
    root = new_book(tmp / "book")
    data = task_module(get_task("nli")).generate(seed=0, train_size=40, dev_size=12)
    texts = [" ".join(str(v) for v in r.values()) for r in data["train"] + data["dev"]]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tiny_causal_lm, "CACHE", tmp / "cache")
        built = tiny_causal_lm.build_tiny_causal_lm(texts, seed=0)
    model = shutil.copytree(built, tmp / "models" / FOLDER)
    env = {
        "KLUEBOOK_TASKS_PATH": str(wild_task(tmp / "extra-tasks")),
        "KLUEBOOK_OPENAI_API_KEY": "sk-kluebook-test",
    }
    prompted = ["run", "--method", "prompted"]
    server = TransformersServer(model, tmp / "server.log")
    proxy = CountingProxy(server, alias=SERVED)
    try:
        runs = [
            kluebook(root, *prompted, "--tasks", "nli", "--models", str(model), *SMALL, env=env),
            kluebook(
                root,
                *prompted,
                *("--tasks", "wild", "--models", str(model), "--set", f"template={TEMPLATE}"),
                *SMALL,
                env=env,
            ),
            *(
                kluebook(
                    root,
                    *prompted,
                    *("--tasks", "nli", "--models", SERVED, "--base-url", proxy.base_url),
                    *("--set", f"mode={mode}", *SMALL),
                    env=env,
                )
                for mode in ("generate", "rank")  # the server gives no log-probabilities
            ),
        ]
    finally:
        server.stop()
        proxy.shutdown()
    for run, outcome in zip(runs, ["1 succeeded"] * 3 + ["1 failed"], strict=True):
        assert outcome in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]
    built = kluebook(root, "book", "--no-run", "--path-output", str(tmp / "site"), env=env)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return tmp / "site" / "_build" / "html", root


def test_no_name_reaches_a_file_name_or_an_address(hostile_book):
    site, root = hostile_book
    made = [
        *(root / "results").rglob("*"),
        *(root / "book" / "runs").rglob("*"),
        *(root / ".cache" / "outputs").rglob("*"),
        *site.rglob("*"),
    ]
    assert len([p for p in made if p.suffix == ".ipynb" and "runs" in p.parts]) >= 3
    for path in made:
        assert SAFE_NAME.fullmatch(path.name) or path.name.startswith("."), path
    hrefs = re.compile(r'(?:href|src|id)="([^"]*)"')
    for page in (p for p in site.rglob("*.html") if "_static" not in p.parts):
        for address in hrefs.findall(page.read_text(encoding="utf-8")):
            unsafe = re.search(r"[<>\"`{}]|javascript:|%3C|%22", address, re.I)
            assert not unsafe, (page, address)


def test_every_page_shows_the_names_as_text_and_runs_no_script_of_theirs(hostile_book):
    site, _ = hostile_book
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    pages = [p for p in pages if not p.startswith(("_static/", "_sources/"))]
    runs = [p for p in pages if p.startswith("book/runs/")]
    assert len(runs) == 3 and len(pages) > 20, pages
    neighbours = {}
    with accessibility.served(site) as base_url, chromium() as browser:
        tab = browser.new_page()

        def look(page: str) -> None:
            links = tab.locator(".prev-next-area")
            neighbours[page] = visible(links.inner_text()) if links.count() else ""

        walked = walk(tab, base_url, pages, INJECTED, look)
    texts = walked.texts
    assert walked.dialogs == [], walked.dialogs
    assert walked.found == {}, walked.found

    folder, served, template = visible(FOLDER), visible(SERVED), visible(TEMPLATE)
    # A configuration names its settings with `_` for a space (`RunSpec.config`).
    configured = f"template={TEMPLATE.replace(' ', '_')}"
    (wild,) = [p for p in runs if "/wild/" in p]
    local, server = sorted((p for p in runs if "/nli/" in p), key=lambda p: "server" in p)
    for page, names in {
        local: [folder],  # its title, heading, card and the sidebar
        server: [served],
        wild: [folder, template],
        "book/_generated/tasks/nli.html": [folder, served],
        "book/_generated/tasks/wild.html": [folder, configured],
        "book/_generated/methods/wild.html": [template],  # its templates' table
        "book/status.html": [folder, served, configured],  # the failed run's error too
        "book/results.html": [folder, served],
    }.items():
        for name in names:
            assert name in texts[page], (page, name)
    # The run's title as the browser's tab and its neighbours' previous/next links name it.
    assert texts[local].startswith(f"Natural language inference (NLI): {folder}@")
    assert sum(f"{folder}@" in text for text in neighbours.values()) >= 2, neighbours
