"""A served run that can be right: a small causal LM trained in the test until it answers the
first smoke dev items of MRC and NER (`trained_lm`), run locally, then through `kluebook run
--base-url` against a real `transformers serve` over the same folder. Both runs give the same
prediction lines, every answer parsed, every metric at 100: a server path that loses or changes
an answer (decoding, chat template, special or stop tokens, the token limit) fails here."""

import json

import pytest
from support.serving import CountingProxy
from support.trained_lm import smoke_questions, train_answering_lm

from kluebook.data import loading
from kluebook.prompting.local_server import TransformersServer
from kluebook.training import checkpoints

pytest.importorskip("openai", reason="the server backend needs the prompted extra")
pytest.importorskip("fastapi", reason="transformers serve needs the prompted extra")

pytestmark = pytest.mark.slow

TASKS = ["mrc", "ner"]
DEV_LIMIT = 4
CONFIG = f"dev_limit={DEV_LIMIT},mode=generate,shots=0"


def test_a_served_run_answers_as_the_local_run_and_scores_at_the_top(
    kluebook, new_book, tmp_path, monkeypatch
):
    root = new_book(tmp_path / "book")
    monkeypatch.setattr(loading, "CACHE", root / ".cache")  # the smoke data its runs will read
    questions = smoke_questions(TASKS, DEV_LIMIT)
    folder = tmp_path / "models" / "answering-lm"
    train_answering_lm(questions, folder)
    sweep = [
        *("run", "--method", "prompted", "--tasks", ",".join(TASKS), "--seeds", "1"),
        *("--models", str(folder), "--set", "mode=generate", "--set", f"dev_limit={DEV_LIMIT}"),
        *("--set", "shots=0", "--quiet"),
    ]
    local = kluebook(root, *sweep)
    assert local.returncode == 0, local.stdout[-3000:] + local.stderr[-3000:]
    with TransformersServer(folder, tmp_path / "server.log") as server:
        proxy = CountingProxy(server)
        served = kluebook(root, *sweep, "--base-url", proxy.base_url)
    assert served.returncode == 0, served.stdout[-3000:] + served.stderr[-3000:]
    assert len(proxy.answered) == len(questions)  # every answer came from the server

    slug = checkpoints.model_slug(str(folder))
    for task in TASKS:
        results = root / "results" / "smoke" / task
        runs = {
            backend: json.loads((results / f"{slug}-{config}-seed1.json").read_text())
            for backend, config in [
                ("transformers", f"prompted,{CONFIG}"),
                ("openai-compatible server", f"prompted,server,{CONFIG}"),
            ]
        }
        lines = []
        for backend, record in runs.items():
            assert record["prompted"]["backend"]["backend"] == backend
            assert record["prompted"]["unparsable"] == 0, (task, backend)
            assert set(record["metrics"].values()) == {100.0}, (task, backend, record["metrics"])
            lines.append((root / record["predictions"]).read_text().splitlines())
        assert lines[0] == lines[1], task
        assert len(lines[0]) == DEV_LIMIT
