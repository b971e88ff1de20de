"""Shared fixtures: the `kluebook` command against a scratch book, real KLUE files from
KLUEBOOK_DATA_DIR (skipped when absent), and the small models and records tests build."""

import importlib.util
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from filelock import FileLock
from support import prompted

from kluebook.book.build import copy_sources
from kluebook.common.paths import CHECKOUT, KLUE_DATA
from kluebook.recording import fingerprints
from kluebook.tasks import all_tasks, task_module

# The tiny causal LMs of the prompted track's runs (tests/support/prompted.py), for every folder.
causal_folder = prompted.causal_folder
other_causal_folder = prompted.other_causal_folder

# A guard against a hung command, far above the longest one (a sweep of every smoke task).
CLI_TIMEOUT_S = 1800


class Kluebook:
    """`kluebook` (or a Python script) in a fresh interpreter, against the book root `root`.

    The command runs in `root` with KLUEBOOK_ROOT set to it and KLUEBOOK_CACHE unset, so its cache
    (generated data, tiny models, logs, locks, outputs) is always the book's own `.cache`: nothing
    is shared between scratch books or with the checkout. `env` adds variables (or replaces them);
    a `None` value removes one.
    """

    def environment(self, root: Path, env: dict | None = None) -> dict[str, str]:
        merged = {**os.environ, **(env or {}), "KLUEBOOK_ROOT": str(root)}
        merged.pop("KLUEBOOK_CACHE", None)
        return {key: value for key, value in merged.items() if value is not None}

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-c", "from kluebook.cli.app import main; main()", *args]

    def __call__(self, root: Path, *args: str, env=None, timeout=CLI_TIMEOUT_S):
        """Run `kluebook ARGS` to its end: the completed process, output captured as text."""
        return subprocess.run(
            self.command(*args),
            capture_output=True,
            text=True,
            env=self.environment(root, env),
            cwd=root,
            timeout=timeout,
        )

    def start(self, root: Path, *args: str, env=None, **popen) -> subprocess.Popen:
        """Start `kluebook ARGS` and return at once (a sweep to watch or interrupt)."""
        return subprocess.Popen(
            self.command(*args), env=self.environment(root, env), cwd=root, text=True, **popen
        )

    def python(self, root: Path, code: str, *args: str, env=None, timeout=CLI_TIMEOUT_S):
        """Run the Python script `code` the way `__call__` runs the command."""
        return subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            env=self.environment(root, env),
            cwd=root,
            timeout=timeout,
        )


def load_script(path: Path):
    """The Python file `path` of the checkout that is not in the package (a benchmark script, the
    book's Sphinx extension), loaded as a module."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def kluebook() -> Kluebook:
    """The one way tests run the command line (see `Kluebook`)."""
    return Kluebook()


@pytest.fixture(scope="session")
def _pristine_book(tmp_path_factory) -> Path:
    """The book's sources (`kluebook.book.build.copy_sources`), copied once per test session."""
    return copy_sources(tmp_path_factory.mktemp("pristine-book"))


def _listing(root: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(root)), p.stat().st_size) for p in root.rglob("*"))


@pytest.fixture(scope="session")
def book_sources(tmp_path_factory, _pristine_book) -> Path:
    """A book root shared by the tests that only read it (commands refused before any run);
    checked unchanged at the end of the session."""
    root = Path(shutil.copytree(_pristine_book, tmp_path_factory.mktemp("read-only") / "book"))
    before = _listing(root)
    yield root
    assert _listing(root) == before, f"a test wrote into the shared read-only book {root}"


# The smoke book the site tests read: two tasks, two seeds each, on cut-down data.
SMOKE_SITE_TASKS = ["ynat", "nli"]
SMOKE_SITE_SETTINGS = ["--set", "train_limit=200", "--set", "dev_limit=60", "--set", "epochs=1"]


@pytest.fixture(scope="session")
def smoke_site(tmp_path_factory, _pristine_book, kluebook) -> Path:
    """The html folder of a smoke book of `SMOKE_SITE_TASKS`, seeds 1 and 2, with the book's
    submissions (their pages, and the side-by-side views of their tasks, weighed against the
    page budget), built once per test run (`kluebook book`) for the tests that only read it;
    checked unchanged at the end. Under
    pytest-xdist (`make test`) the first test process that needs it builds it, under a lock, in
    the folder the processes of this run share, and the others read it."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's folder, above each process's own
    folder = shared / "smoke-site"
    out = folder / "book" / "site"
    with FileLock(shared / "smoke-site.lock"):
        if not (folder / "built").is_file():
            shutil.rmtree(folder, ignore_errors=True)
            root = Path(shutil.copytree(_pristine_book, folder / "book"))
            tasks = ",".join(SMOKE_SITE_TASKS)
            args = ["--tasks", tasks, "--seeds", "1,2", *SMOKE_SITE_SETTINGS, "--quiet"]
            result = kluebook(root, "book", *args, "--path-output", str(out))
            assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
            (folder / "built").touch()
    html = out / "_build" / "html"
    before = _listing(html)
    yield html
    assert _listing(html) == before, f"a test wrote into the shared smoke site {html}"


@pytest.fixture(scope="session")
def new_book(_pristine_book):
    """`new_book(folder)`: a fresh book root at `folder` (made, or empty), for a test to write."""

    def make(folder: Path) -> Path:
        return Path(shutil.copytree(_pristine_book, folder, dirs_exist_ok=True))

    return make


@pytest.fixture
def scratch_book(tmp_path, new_book) -> Path:
    """A fresh book root of this test's own, `tmp_path / "book"`."""
    return new_book(tmp_path / "book")


def kernel_processes(pid: int) -> list:
    """The notebook kernels process `pid` has started, directly or not, still running: started
    afresh (`python -m ipykernel_launcher`) or forked by a warm-kernel server
    (`python -m kluebook.running.warm_kernels`), whose command line they keep."""
    import psutil  # installed with the dask extra; the tests that call this skip without it

    try:
        children = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    kernels = []
    for child in children:
        try:
            command, parent = " ".join(child.cmdline()), " ".join(child.parent().cmdline())
        except (psutil.NoSuchProcess, AttributeError):  # it, or its parent, ended meanwhile
            continue
        if "ipykernel" in command or "kluebook.running.warm_kernels" in parent:
            kernels.append(child)
    return kernels


def wait_for(condition, timeout: float, what: str, every: float = 0.5):
    """Poll `condition()` every `every` seconds until it returns something true, and return it;
    `TimeoutError` naming `what` after `timeout` seconds. The one way tests wait for another
    process: an event they can see (a file, a job state, a child process), never a fixed sleep."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {what} after {timeout:.0f} s")
        time.sleep(every)


@pytest.fixture(scope="session")
def klue_file():
    """Find a real KLUE v1.1 file in KLUEBOOK_DATA_DIR: the first of the relative paths given
    that exists (e.g. a full file, then a reduced copy); the test skips with a reason if none does.
    """

    def find(*relative_paths: str) -> Path:
        for relative in relative_paths:
            if (KLUE_DATA / relative).is_file():
                return KLUE_DATA / relative
        pytest.skip(
            f"real KLUE file {relative_paths[0]} not found in KLUEBOOK_DATA_DIR ({KLUE_DATA}); "
            "fill it with `kluebook data fetch` or point the variable at a copy"
        )

    return find


def tiny_encoder(tokenizer, hidden_size=32, layers=2, max_positions=130, dropout=0.1):
    """A seeded, randomly initialised RoBERTa encoder small enough for unit tests."""
    import torch
    from transformers import RobertaConfig, RobertaModel

    torch.manual_seed(0)
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=2 * hidden_size,
        max_position_embeddings=max_positions,
        type_vocab_size=1,
        pad_token_id=tokenizer.pad_token_id,
        hidden_dropout_prob=dropout,
        attention_probs_dropout_prob=dropout,
    )
    return RobertaModel(config)


def dummy_fine_tune(
    tmp_path,
    train_size: int,
    recipe_changes: dict,
    scores=None,
    metric: str = "score",
):
    """`kluebook.training.fine_tuning.fine_tune` on a one-weight model over `train_size` identical
    rows.

    The dev metric `metric` takes the values of `scores` in turn (a constant if None). Returns
    the fine-tune result and the optimizer steps at which dev was scored.
    """
    import datasets
    import torch
    from transformers import default_data_collator

    from kluebook.training.fine_tuning import fine_tune
    from kluebook.training.recipes import Recipe

    class OneWeight(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.zeros(1))

        def forward(self, x, labels=None):
            logits = x * self.weight
            return {"loss": ((logits - labels) ** 2).mean(), "logits": logits}

    values = iter(scores) if scores is not None else None
    model = OneWeight()

    def compute_metrics(prediction):
        return {metric: float(next(values)) if values is not None else 1.0}

    fields = {
        "learning_rate": 1e-3,
        "batch_size": 1,
        "eval_batch_size": 4,
        "epochs": 3,
        "warmup_ratio": 0.0,
        "weight_decay": 0.0,
        "max_length": 8,
        "adam_epsilon": 1e-8,
        "max_grad_norm": 1.0,
        "evals_per_epoch": 4,
        "selection_metric": metric,
        **recipe_changes,
    }
    rows = {"x": [[1.0]] * train_size, "labels": [[1.0]] * train_size}
    dev = datasets.Dataset.from_dict({"x": [[1.0]] * 2, "labels": [[1.0]] * 2})
    torch.manual_seed(0)
    result = fine_tune(
        model,
        None,
        datasets.Dataset.from_dict(rows),
        dev,
        compute_metrics,
        Recipe(**fields),
        0,
        tmp_path,
        data_collator=default_data_collator,
    )
    logs = result.trainer.state.log_history
    scored_at = [entry["step"] for entry in logs if f"eval_{metric}" in entry]  # NaNs included
    return result, scored_at


def fit_with_lightning(module, batches: int, **settings) -> None:
    """Fit `module` with a real, quiet `lightning.Trainer` on CPU, the trainer of the official
    code: `batches` training batches of one example, one validation batch, no sanity check;
    `settings` are the Trainer's arguments under test (epochs, check interval, callbacks)."""
    import logging
    import warnings

    import lightning
    import torch

    trainer = lightning.Trainer(
        num_sanity_val_steps=0,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        accelerator="cpu",
        devices=1,
        **settings,
    )
    train = torch.utils.data.TensorDataset(torch.ones(batches, 1))
    dev = torch.utils.data.TensorDataset(torch.ones(1, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
        trainer.fit(
            module,
            torch.utils.data.DataLoader(train, batch_size=1),
            torch.utils.data.DataLoader(dev),
        )


def valid_record(fields: dict):
    """A `RunRecord` with `fields` (task, profile, model, seed, metrics, status…), completed
    with what `kluebook run` would record; made from today's code and notebook of its task unless
    `fields` holds its `inputs`. A failed run keeps no outcome."""
    from kluebook.recording import records
    from kluebook.tasks import get_task

    task = get_task(fields.get("task", "ynat"))
    parameters = {
        "model": fields.get("model", "kluebook/tiny-roberta"),
        "profile": fields.get("profile", "smoke"),
        "data_source": fields.get("data_source", "generated"),
        "data_dir": "",
        "seed": fields.get("seed", 1),
        "output_dir": ".cache/outputs",
    }
    inputs = fingerprints.Inputs.model_validate(
        fields.get("inputs")
        or {
            **fingerprints.current_code(task),
            "parameters": fingerprints.text_digest(str(parameters)),
            "data": "generated-data",
        }
    )
    record = {
        "task": task.name,
        "task_version": task.version,
        **{k: parameters[k] for k in ("model", "profile", "seed", "data_source")},
        "parameters": parameters,
        "finished_at": "2026-01-02T03:04:05+00:00",
        "wall_time_s": 1.0,
        "status": "succeeded",
        **fields,
        "inputs": inputs,
        "fingerprint": inputs.fingerprint,
    }
    if record["status"] == "succeeded":
        outcome = {
            "model_revision": "built locally",
            "recipe": {},
            "data_checksum": "d",
            "metrics": {},
        }
        record = {**outcome, **record}
    else:
        outcome_fields = set(records.Outcome.model_fields)
        record = {k: v for k, v in record.items() if k not in outcome_fields}
        record.setdefault("error", "RuntimeError: failed")
    return records.RunRecord.model_validate(record)


# The special tokens of the released checkpoints, in their vocabulary order.
RELEASED_SPECIAL_TOKENS = {
    "bert": ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],  # klue/bert-base
    "roberta": ["[CLS]", "[PAD]", "[SEP]", "[UNK]", "[MASK]"],  # klue/roberta-*
}


def standin_checkpoint(folder, family: str, texts, vocab_size: int = 3000, hidden_size: int = 32):
    """A randomly initialised checkpoint shaped like a released KLUE model, saved in `folder`.

    `bert`: klue/bert-base's shape (model_type bert, two token types, 512 positions, [PAD] = 0).
    `roberta`: klue/roberta-*'s (model_type roberta, one token type, 514 positions, [CLS] [PAD]
    [SEP] = 0 1 2 as bos, pad and eos, and a BertTokenizer named only by config.json's
    `tokenizer_class`, as the released tokenizer_config.json names none). The WordPiece
    vocabulary is learned from `texts` by `kluebook.training.tiny_model.wordpiece_vocabulary` (the
    same in every process); the encoder is tiny (two layers of `hidden_size`).
    """
    import json
    from pathlib import Path

    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast, RobertaConfig, RobertaModel

    from kluebook.training.tiny_model import wordpiece_vocabulary

    specials = RELEASED_SPECIAL_TOKENS[family]
    learned = [t for t in wordpiece_vocabulary(texts, vocab_size) if t not in specials]
    vocab = {token: index for index, token in enumerate([*specials, *learned])}
    ends = {"bos_token": "[CLS]", "eos_token": "[SEP]"} if family == "roberta" else {}
    tokenizer = BertTokenizerFast(vocab=vocab, do_lower_case=False, model_max_length=512, **ends)
    size = {
        "vocab_size": len(vocab),
        "hidden_size": hidden_size,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 2 * hidden_size,
    }
    if family == "bert":
        config = BertConfig(
            **size, max_position_embeddings=512, type_vocab_size=2, pad_token_id=vocab["[PAD]"]
        )
        model_class = BertModel
    else:
        config = RobertaConfig(
            **size,
            max_position_embeddings=514,
            type_vocab_size=1,
            bos_token_id=vocab["[CLS]"],
            pad_token_id=vocab["[PAD]"],
            eos_token_id=vocab["[SEP]"],
            tokenizer_class="BertTokenizer",
        )
        model_class = RobertaModel
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model_class(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    if family == "roberta":
        settings = Path(folder) / "tokenizer_config.json"
        entry = json.loads(settings.read_text(encoding="utf-8"))
        entry.pop("tokenizer_class", None)
        settings.write_text(json.dumps(entry, ensure_ascii=False, indent=2), encoding="utf-8")
    return Path(folder)


# Smoke dev sets with imperfect predictions of every task, for the bootstrap and comparison tests.
bootstrap_speed = load_script(CHECKOUT / "benchmarks" / "bootstrap_speed.py")


@pytest.fixture(scope="session")
def imperfect_predictions():
    """benchmarks/bootstrap_speed.py's gold-with-errors prediction lines, for any task."""
    return bootstrap_speed.imperfect_predictions


@pytest.fixture(scope="session")
def smoke_dev():
    """task -> (gold records, imperfect prediction lines) on the task's generated dev set."""
    cache = {}

    def get(task: str):
        if task not in cache:
            module = task_module(all_tasks()[task])
            records = module.generate(seed=5, **all_tasks()[task].smoke_data)["dev"]
            rows = bootstrap_speed.imperfect_predictions(
                task, module.gold_predictions(records), random.Random(7)
            )
            cache[task] = records, rows
        return cache[task]

    return get
