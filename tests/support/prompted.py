"""The prompted track's shared fixtures.

- `prompted_task`: a prompted task of the tests' own (a copy of YNAT with a template and a
  prompting module, registered through KLUEBOOK_TASKS_PATH). Package-scoped: a test package's
  conftest imports it (tests/prompting/, tests/benchmarks/), so that only that package's tests
  see it and the others the built-in tasks alone.
- `causal_folder`, `other_causal_folder`: tiny causal LMs built on NLI's text, each saved in a
  folder of its own, for the runs of the command line (registered for every folder by
  tests/conftest.py).
"""

import shutil
import textwrap
from pathlib import Path

import pytest

from kluebook.tasks import get_task, task_module

TASK = "toytopics"
TEMPLATE = """\
mode: rank
instruction: 다음 뉴스 제목의 주제를 고르세요.
answer_format: 정치, 경제, 사회, 생활문화, 세계, IT과학, 스포츠 가운데 하나로 답하세요.
query: "제목: {title}"
answer_prefix: "주제:"
max_new_tokens: 6
"""
PROMPTING = """\
from kluebook.tasks.prompt_items import PromptItem

LABELS = ("정치", "경제", "사회", "생활문화", "세계", "IT과학", "스포츠")


def prompt_items(records):
    return [
        PromptItem(key=r["guid"], fields={"title": r["title"]}, answer=r["label"], choices=LABELS)
        for r in records
    ]


def parse_answer(item, body):
    words = body.split()
    return {"guid": item.key, "label": words[0]} if words and words[0] in LABELS else None


def rank_prediction(item, logprobs):
    return {"guid": item.key, "label": max(logprobs, key=logprobs.get)}


def fallback_prediction(item):
    return {"guid": item.key, "label": next(label for label in LABELS if label != item.answer)}
"""


@pytest.fixture(scope="package")
def prompted_task(tmp_path_factory):
    """The name of a registered task that can be prompted, with its template's folder (registered
    for the tests of this package only: the other tests see the built-in tasks alone)."""
    extra = tmp_path_factory.mktemp("extra-tasks")
    folder = extra / TASK
    shutil.copytree(get_task("ynat").folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.rmtree(folder / "prompts")
    (folder / "prompts").mkdir()
    (folder / "prompts" / "standard.yaml").write_text(TEMPLATE, encoding="utf-8")
    (folder / "prompting.py").write_text(textwrap.dedent(PROMPTING), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KLUEBOOK_TASKS_PATH", str(extra))
        yield TASK


@pytest.fixture(scope="session")
def causal_folder(tmp_path_factory):
    """The tiny causal LM built on NLI's smoke text and saved in a folder of its own, as a
    user's local model is (no task of the tests' own is registered for it)."""
    return nli_causal_lm(tmp_path_factory, seed=0)


@pytest.fixture(scope="session")
def other_causal_folder(tmp_path_factory):
    """Another model of `causal_folder`'s shape and vocabulary, its weights drawn by another
    seed: what a server restarted with other weights under the same name answers with."""
    return nli_causal_lm(tmp_path_factory, seed=1)


def nli_causal_lm(tmp_path_factory, seed: int) -> Path:
    from kluebook.prompting import tiny_causal_lm

    data = task_module(get_task("nli")).generate(seed=0, train_size=40, dev_size=12)
    texts = [
        " ".join(str(value) for value in record.values()) for record in data["train"] + data["dev"]
    ]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tiny_causal_lm, "CACHE", tmp_path_factory.mktemp("cache"))
        built = tiny_causal_lm.build_tiny_causal_lm(texts, seed=seed)
    return Path(shutil.copytree(built, tmp_path_factory.mktemp("models") / f"tiny-causal-{seed}"))
