"""Prompted runs through the command line: `--method prompted` plans the profile's prompted
matrix (the paper one runs on the real files, a local stand-in in its model's place); bad
input is one line and a non-zero exit, before any run where the runner can tell (exit 2), in
the failed run's line where only the run can (exit 1)."""

import json
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from kluebook.common.paths import KLUE_DATA
from kluebook.prompting.registry import task_template
from kluebook.tasks import get_task
from kluebook.training import checkpoints

PROMPTED_NLI = ("run", "--method", "prompted", "--tasks", "nli")


def assert_one_line_error(result: subprocess.CompletedProcess, *fragments: str) -> str:
    """The command refused in one `error:` line on stderr, with exit status 2."""
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def assert_failed_in_one_line(root: Path, result, *fragments: str) -> str:
    """The only run failed (exit status 1): its line and its failure record name the problem."""
    assert result.returncode == 1, result.stdout + result.stderr
    assert "0 succeeded, 0 skipped (up to date), 1 failed" in result.stdout, result.stdout
    (failure,) = root.glob("results/*/*/*.failed.json")
    error = json.loads(failure.read_text())["error"]
    assert "\n" not in error
    for fragment in fragments:
        assert fragment in error, error
    assert f"failed: {error}" in result.stdout, result.stdout  # the run's line says it
    return error


@pytest.fixture(scope="module")
def book(tmp_path_factory, new_book):
    """A book root for the commands that plan runs and execute none."""
    return new_book(tmp_path_factory.mktemp("planning"))


def test_method_prompted_plans_the_profiles_prompted_matrix(kluebook, book):
    chosen = kluebook(book, *PROMPTED_NLI, "--dry-run")
    assert chosen.returncode == 0, chosen.stderr
    named = kluebook(book, "run", "--matrix", "prompted-smoke", "--tasks", "nli", "--dry-run")
    assert chosen.stdout == named.stdout
    runs = [line for line in chosen.stdout.splitlines() if line.startswith("would execute: ")]
    assert len(runs) == 2 and all(" smoke-kluebook--tiny-qwen3-prompted," in r for r in runs)
    status = kluebook(book, "status", "--method", "prompted", "--tasks", "nli")
    assert status.returncode == 0, status.stderr
    assert "0 current, 0 stale, 0 failed, 0 interrupted, 2 missing" in status.stdout
    fine_tuned = kluebook(book, "run", "--method", "fine-tuned", "--tasks", "nli", "--dry-run")
    assert fine_tuned.stdout == kluebook(book, "run", "--tasks", "nli", "--dry-run").stdout
    assert "prompted" not in fine_tuned.stdout


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        (("--method", "tuned"), "unknown method 'tuned'; choose fine-tuned or prompted"),
        (("--method", "prompted", "--matrix", "prompted-smoke"), "give --method or --matrix"),
        (("--method", "prompted", "--profile", "nope"), "'nope' has no prompted matrix"),
        (("--base-url", "http://127.0.0.1:9/v1"), "--base-url is for prompted runs"),
        (("--method", "prompted", "--set", "base_url=http://x"), "use its own option"),
        (
            ("--method", "prompted", "--set", "mode=guess"),
            "mode='guess': choose rank or generate, or '' for nli's template (rank)",
        ),
    ],
)
def test_a_bad_prompted_option_is_one_line_before_any_run(kluebook, book, arguments, fragment):
    assert_one_line_error(kluebook(book, "run", "--tasks", "nli", *arguments), fragment)
    assert not (book / "results").exists()


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        (
            "http://kluebook:pw-SENTINEL@127.0.0.1:8000/v1",
            "--base-url holds credentials (user:password@): give the URL without them and the "
            "server's key in KLUEBOOK_OPENAI_API_KEY or OPENAI_API_KEY",
        ),
        (
            "http://[::1",
            "--base-url is not a URL (Invalid IPv6 URL), e.g. http://127.0.0.1:8000/v1",
        ),
        ("not-a-url", "--base-url must be an http:// or https:// URL, e.g. http://127.0.0.1:8000"),
        ("file:///etc/passwd", "--base-url must be an http:// or https:// URL"),
        ("127.0.0.1:8000/v1", "--base-url must be an http:// or https:// URL"),
        ("http://:8000/v1", "--base-url names no host"),
        ("http://localhost:port/v1", "--base-url is not a URL (Port could not be cast"),
        ("http://127.0.0.1:8000/v1?key=SENTINEL", "--base-url has a query or fragment"),
    ],
)
def test_a_bad_base_url_is_one_line_before_any_run_in_run_and_status(
    kluebook, book_sources, url, fragment
):
    for command in ("run", "status"):
        arguments = (command, "--method", "prompted", "--tasks", "nli", "--base-url", url)
        result = kluebook(book_sources, *arguments)
        assert_one_line_error(result, fragment)
        assert result.stdout == "" and "SENTINEL" not in result.stderr


def test_status_takes_the_prompted_options_of_run(kluebook, book):
    result = kluebook(book, "status", "--method", "prompted", "--set", "mode=guess")
    assert_one_line_error(result, "mode='guess'")


def test_shots_beyond_a_train_limit_and_rank_for_a_generated_task_say_so(kluebook, book):
    beyond = kluebook(book, *PROMPTED_NLI, "--set", "shots=5", "--set", "train_limit=3")
    assert_one_line_error(
        beyond, "shots=5 is more than the 3 train items of train_limit=3: use at most 3"
    )
    ranked = kluebook(book, "run", "--method", "prompted", "--tasks", "ner", "--set", "mode=rank")
    assert_one_line_error(ranked, "mode=rank: ner has no closed answer set to rank")


@pytest.fixture(scope="module")
def untemplated_tasks(tmp_path_factory) -> Path:
    """Tasks of their own (copies of YNAT): one with no prompt template, one whose template has a
    key no template has, one whose query leaves a brace open, one whose query names a field
    its items do not have."""
    extra = tmp_path_factory.mktemp("untemplated")
    ynat = get_task("ynat").folder
    template = (ynat / "prompts" / "standard.yaml").read_text(encoding="utf-8")
    templates = {
        "typo": template + "temperature: 0.7\n",
        "brace": template.replace("{title}", "{title"),
        "field": template.replace("{title}", "{headline}"),
    }
    for name in ("bare", *templates):
        shutil.copytree(ynat, extra / name, ignore=shutil.ignore_patterns("__pycache__", "prompt*"))
    for name, text in templates.items():
        (extra / name / "prompts").mkdir()
        (extra / name / "prompts" / "standard.yaml").write_text(text, encoding="utf-8")
        shutil.copy(ynat / "prompting.py", extra / name / "prompting.py")
    return extra


def test_a_task_without_a_valid_template_is_one_line(kluebook, book, untemplated_tasks):
    env = {"KLUEBOOK_TASKS_PATH": str(untemplated_tasks)}
    bare = kluebook(book, "run", "--method", "prompted", "--tasks", "bare", "--dry-run", env=env)
    assert_one_line_error(bare, "bare/prompts: no prompt template (the task cannot be prompted)")
    typo = kluebook(book, "run", "--method", "prompted", "--tasks", "typo", "--dry-run", env=env)
    assert_one_line_error(
        typo, "typo/prompts/standard.yaml: not a valid prompt template", "temperature"
    )
    brace = kluebook(book, "run", "--method", "prompted", "--tasks", "brace", "--dry-run", env=env)
    assert_one_line_error(
        brace,
        "brace/prompts/standard.yaml: not a valid prompt template",
        "write {{ and }} for a literal",
    )
    field = kluebook(book, "run", "--method", "prompted", "--tasks", "field", "--dry-run", env=env)
    assert_one_line_error(
        field, "field's template 'standard': the query names headline, which its items do not"
    )
    other = kluebook(
        book,
        "run",
        "--method",
        "prompted",
        "--tasks",
        "nli",
        "--set",
        "template=loud",
        "--dry-run",
    )
    assert_one_line_error(other, "template 'loud': no such template; known: brief, reworded")


def test_a_model_without_a_tokenizer_is_one_line_before_any_run(
    kluebook, book, causal_folder, tmp_path
):
    bare = tmp_path / "bare-model"
    bare.mkdir()
    for name in ("config.json", "model.safetensors", "generation_config.json"):
        shutil.copy(causal_folder / name, bare / name)
    result = kluebook(book, *PROMPTED_NLI, "--models", str(bare), "--set", "shots=0")
    assert_one_line_error(result, f"model {bare}: no tokenizer could be loaded from its files")
    assert not (book / "results").exists()


@pytest.mark.slow
def test_shots_beyond_the_train_split_fail_the_run_in_one_line(kluebook, scratch_book):
    result = kluebook(
        scratch_book,
        *PROMPTED_NLI,
        *("--seeds", "1", "--set", "shots=100000", "--set", "dev_limit=2", "--quiet"),
    )
    assert_failed_in_one_line(
        scratch_book, result, "shots=100000 is more than the ", " items of the train split"
    )


def test_a_server_that_does_not_answer_is_one_line_before_any_run(kluebook, book):
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{free.getsockname()[1]}/v1"
    result = kluebook(
        book,
        *PROMPTED_NLI,
        *("--models", "served-model", "--base-url", url, "--retries", "0"),
        *("--set", "shots=0", "--set", "mode=generate"),
    )
    line = assert_one_line_error(
        result, "the server (--base-url) does not answer (APIConnectionError, 1 try of up to 60 s)"
    )
    assert url.removeprefix("http://").removesuffix("/v1") not in line + result.stdout
    assert not (book / "results").exists()


def test_a_model_path_outside_the_book_root_is_one_line_before_any_run(kluebook, book):
    result = kluebook(book, *PROMPTED_NLI, "--models", "../../../etc", "--dry-run")
    assert_one_line_error(
        result, "model '../../../etc': a relative path that leads outside the book root"
    )
    # Nothing was made where the path leads (other tests' folders beside the book may hold
    # "etc" in their names, so the exact places are looked at).
    assert not (book / "../../../etc").resolve().exists()
    assert not (book.parent / "etc").exists()


def test_a_damaged_response_cache_is_one_line_before_any_run(kluebook, new_book, tmp_path):
    root = new_book(tmp_path / "book")
    cache = root / ".cache" / "prompting" / "responses.sqlite"
    cache.parent.mkdir(parents=True)
    cache.write_bytes(bytes(range(256)) * 64)
    served = ("--models", "m", "--base-url", "http://127.0.0.1:9/v1")
    for command in (PROMPTED_NLI, (*PROMPTED_NLI, "--dry-run"), ("status", *PROMPTED_NLI[1:])):
        result = kluebook(root, *command, *served)
        assert_one_line_error(result, "prompting/responses.sqlite: not a readable response cache")
        assert "remove it to start afresh" in result.stderr


@pytest.mark.slow
def test_a_context_too_short_for_the_prompt_fails_the_run_saying_by_how_much(
    kluebook, scratch_book, causal_folder, tmp_path
):
    short = tmp_path / "short-context"
    shutil.copytree(causal_folder, short)
    config = json.loads((short / "config.json").read_text())
    config["max_position_embeddings"] = 16
    (short / "config.json").write_text(json.dumps(config))
    result = kluebook(
        scratch_book,
        *PROMPTED_NLI,
        *("--models", str(short), "--seeds", "1", "--set", "shots=0", "--set", "dev_limit=2"),
        "--quiet",
    )
    error = assert_failed_in_one_line(
        scratch_book,
        result,
        f"more than the 16-token context of {checkpoints.model_id(str(short))}: use fewer shots",
    )
    assert str(tmp_path) not in error  # the model is named by its id, not its folder


@pytest.mark.slow
@pytest.mark.realdata
def test_the_paper_prompted_matrix_runs_on_the_official_files(
    kluebook, new_book, causal_folder, klue_file, tmp_path
):
    """The paper profile's prompted matrix, its hub model replaced by a local folder and the
    dev set cut to 8 items: both shot counts on the official NLI files."""
    for split in ("train", "dev"):
        klue_file(f"klue-nli-v1.1/klue-nli-v1.1_{split}.json")
    root = new_book(tmp_path / "book")
    (root / "data").mkdir(exist_ok=True)
    (root / "data" / "klue_benchmark").symlink_to(KLUE_DATA, target_is_directory=True)
    result = kluebook(
        root,
        *("run", "--method", "prompted", "--profile", "paper", "--tasks", "nli"),
        *("--models", str(causal_folder), "--set", "dev_limit=8", "--quiet"),
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "2 succeeded, 0 skipped (up to date), 0 failed" in result.stdout
    prefix = task_template("nli").answer_prefix
    slug = checkpoints.model_slug(str(causal_folder))
    train = len(json.loads((KLUE_DATA / "klue-nli-v1.1/klue-nli-v1.1_train.json").read_text()))
    for shots in (0, 5):
        name = f"{slug}-prompted,dev_limit=8,shots={shots}-seed42.json"
        record = json.loads((root / "results" / "paper" / "nli" / name).read_text())
        assert (record["profile"], record["data_source"], record["method"]) == (
            "paper",
            "official",
            "prompted",
        )
        assert record["counts"] == {"train": train, "dev": 8}
        assert (
            record["model_revision"] == f"local folder: {checkpoints.model_id(str(causal_folder))}"
        )
        assert record["prompted"]["shots"] == shots
        assert record["prompted"]["first_prompt"].count(prefix) == shots + 1
        assert {"accuracy"} <= set(record["metrics"])
