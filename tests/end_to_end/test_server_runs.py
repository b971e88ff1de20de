"""A prompted run answered by a real OpenAI-compatible server through `kluebook run
--base-url`: `transformers serve` over the tiny causal LM, started by the test on the loopback
address, behind the counting relay. The run is named `server`; the API key reaches the server
and no file the run leaves, nor does the server's address; a rerun is skipped, and a forced one
asks every answer afresh, to the same predictions. Another model served under the same name
stales the run, which asks that model again."""

import json
import sys
import tempfile
from pathlib import Path

import pytest
from support.serving import CountingProxy, KeyEchoingServer

from kluebook.common.paths import PACKAGE
from kluebook.prompting.local_server import TransformersServer
from kluebook.recording import provenance
from kluebook.training import checkpoints

pytest.importorskip("openai", reason="the server backend needs the prompted extra")
pytest.importorskip("fastapi", reason="transformers serve needs the prompted extra")

pytestmark = pytest.mark.slow

SECRET = "sk-kluebook-test-runner-0123456789"
CONFIG = "prompted,server,dev_limit=4,mode=generate,shots=2"


def files_under(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file() and not path.is_symlink()]


def test_a_run_answered_by_a_server_keeps_no_key_nor_address_and_reruns_asking_nothing(
    kluebook, new_book, causal_folder, tmp_path
):
    root = new_book(tmp_path / "book")
    server = TransformersServer(causal_folder, tmp_path / "server.log")
    proxy = CountingProxy(server)
    sweep = [
        *("run", "--method", "prompted", "--tasks", "nli", "--seeds", "1"),
        *("--models", str(causal_folder), "--base-url", proxy.base_url),
        *("--set", "shots=2", "--set", "mode=generate", "--set", "dev_limit=4", "--quiet"),
    ]
    env = {"KLUEBOOK_OPENAI_API_KEY": SECRET}
    stem = f"{checkpoints.model_slug(str(causal_folder))}-{CONFIG}-seed1"
    predictions = root / "results" / "smoke" / "nli" / f"{stem}.predictions.jsonl"
    try:
        first = kluebook(root, *sweep, env=env)
        asked = proxy.received
        answered = predictions.read_text() if predictions.exists() else ""
        again = kluebook(root, *sweep, env=env)
        forced = kluebook(root, *sweep, "--force", env=env)
    finally:
        server.stop()
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "1 succeeded, 0 skipped (up to date), 0 failed" in first.stdout
    assert asked == 4  # one generated answer per dev item
    assert proxy.authorizations == {f"Bearer {SECRET}"}
    assert "0 succeeded, 1 skipped (up to date), 0 failed" in again.stdout, again.stdout
    # Executed again, and every answer asked afresh: to the same predictions.
    assert "1 succeeded, 0 skipped (up to date), 0 failed" in forced.stdout, forced.stdout
    assert proxy.received == len(proxy.answered) == 2 * asked
    assert predictions.read_text() == answered

    record = json.loads(predictions.with_name(f"{stem}.json").read_text())
    assert record["method"] == "prompted" and record["config"] == CONFIG
    assert record["parameters"]["base_url"] == provenance.SERVER
    assert record["model_revision"] == "the server's"
    backend = record["prompted"]["backend"]
    assert {k: backend[k] for k in ("backend", "model", "endpoint")} == {
        "backend": "openai-compatible server",
        "model": checkpoints.model_id(str(causal_folder)),
        "endpoint": "chat",
    }
    assert backend["served_model"]["identity"] == record["parameters"]["served_model"]
    assert backend["options"] == {"timeout": 60.0, "retries": 2, "concurrency": 4, "reask": True}
    usage = record["prompted"]["usage"]  # the forced run's: every answer asked afresh
    assert (usage["requests"], usage["cache_hits"], usage["uncounted"]) == (4, 0, 0)
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert record["predictions"] == str(predictions.relative_to(root))
    assert len({json.loads(line)["guid"] for line in answered.splitlines()}) == 4

    # No record, log, kept notebook, page or cache holds the key or the server's address.
    report = kluebook(root, "report")
    assert report.returncode == 0, report.stdout[-2000:] + report.stderr[-2000:]
    assert list((root / "book" / "runs" / "nli").glob(f"*{CONFIG}*"))
    for file in files_under(root):
        content = file.read_bytes()
        assert SECRET.encode() not in content, file
        assert proxy.base_url.encode() not in content, file


def test_another_model_served_under_the_same_name_stales_the_run_and_is_asked_again(
    kluebook, new_book, causal_folder, other_causal_folder, tmp_path
):
    root = new_book(tmp_path / "book")
    chosen = [
        *("--method", "prompted", "--tasks", "nli", "--seeds", "1", "--models", "llm"),
        *("--set", "shots=2", "--set", "mode=generate", "--set", "dev_limit=4"),
    ]
    record = root / "results" / "smoke" / "nli" / f"llm-{CONFIG}-seed1.json"
    answered = {}
    for name, folder in (("a", causal_folder), ("b", other_causal_folder)):
        with TransformersServer(folder, tmp_path / f"server-{name}.log") as server:
            proxy = CountingProxy(server, alias="llm")
            address = ("--base-url", proxy.base_url)
            before = kluebook(root, "status", *chosen, *address)
            ran = kluebook(root, "run", *chosen, *address, "--quiet")
            after = kluebook(root, "status", *chosen, *address)
        assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
        assert len(proxy.answered) == 4, name  # every answer asked of this model
        assert "1 current" in after.stdout, after.stdout
        answered[name] = (before.stdout, json.loads(record.read_text()))
    assert "1 missing" in answered["a"][0]
    assert "stale (served model changed)" in answered["b"][0], answered["b"][0]
    first, second = answered["a"][1], answered["b"][1]
    assert first["parameters"]["served_model"] != second["parameters"]["served_model"]
    assert second["prompted"]["backend"]["served_model"]["listed"]
    assert first["prompted"]["first_answer"] != second["prompted"]["first_answer"]


PASSWORD = "pw-kluebook-sentinel-9876"


def test_no_key_password_address_nor_machine_path_reaches_a_file_of_the_book_or_its_site(
    kluebook, new_book, causal_folder, tmp_path
):
    """Sweeps that succeed and fail on a real server, and one refused by a server that echoes
    the key in its error; a URL with a password is refused before any run, echoing nothing."""
    root = new_book(tmp_path / "book")
    env = {"KLUEBOOK_OPENAI_API_KEY": SECRET}
    model = str(causal_folder)
    nli = ("--method", "prompted", "--tasks", "nli", "--seeds", "1", "--set", "shots=0")
    nli += ("--set", "dev_limit=2")
    both = ("--models", f"{model},echo-model")
    server = TransformersServer(causal_folder, tmp_path / "server.log")
    proxy, echo = CountingProxy(server), KeyEchoingServer()
    addresses = [f"127.0.0.1:{port}" for port in (server.port, proxy.server_address[1])]
    addresses.append(f"127.0.0.1:{echo.server_address[1]}")

    def sweep(base_url: str, served: str, mode: str):
        chosen = ("--models", served, "--base-url", base_url, "--set", f"mode={mode}")
        return kluebook(root, "run", *nli, *chosen, "--quiet", env=env)

    try:
        with_password = proxy.base_url.replace("//", f"//kluebook:{PASSWORD}@")
        refused = [
            kluebook(root, command, *nli, *both, "--base-url", with_password, env=env)
            for command in ("run", "status")
        ]
        assert not (root / "results").exists() and proxy.received == 0
        served = sweep(proxy.base_url, model, "generate")
        ranked = sweep(proxy.base_url, model, "rank")  # the server gives no log-probabilities
        echoed = sweep(echo.base_url, "echo-model", "generate")
        statuses = [  # status asks the server which model it runs
            kluebook(root, "status", *nli, *both, "--base-url", echo.base_url, "--set", f"mode={m}")
            for m in ("generate", "rank")
        ]
    finally:
        server.stop()
        echo.shutdown()
    for result in refused:
        assert result.returncode == 2 and result.stdout == "", result.stdout + result.stderr
        assert result.stderr.startswith("error: --base-url holds credentials"), result.stderr
        assert "KLUEBOOK_OPENAI_API_KEY" in result.stderr and PASSWORD not in result.stderr
        assert len(result.stderr.splitlines()) == 1
    assert "1 succeeded, 0 skipped (up to date), 0 failed" in served.stdout, served.stdout
    assert "0 succeeded, 0 skipped (up to date), 1 failed" in ranked.stdout, ranked.stdout
    assert "0 succeeded, 0 skipped (up to date), 1 failed" in echoed.stdout, echoed.stdout
    assert echo.keys == {SECRET}  # so its errors held the key
    assert "1 current, 0 stale, 1 failed" in statuses[0].stdout, statuses[0].stdout
    assert "0 current, 0 stale, 1 failed" in statuses[1].stdout, statuses[1].stdout
    report = kluebook(root, "report")
    assert report.returncode == 0, report.stdout[-2000:] + report.stderr[-2000:]
    built = kluebook(root, "book", "--no-run", "--path-output", str(root / "site"))
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert (root / "site" / "_build" / "html" / "book" / "status.html").exists()

    # What the terminal said, and every file of the book root, its cache and its site.
    said = [r.stdout + r.stderr for r in (*refused, served, ranked, echoed, *statuses, report)]
    contents = [file.read_bytes().decode("utf-8", "replace") for file in files_under(root)]
    for text in [*said, *contents]:
        for sentinel in (SECRET, PASSWORD, *addresses):
            assert sentinel not in text, sentinel
    failures = [file.read_text() for file in root.glob("results/smoke/nli/*.failed.json")]
    assert len(failures) == 2  # ranked without log-probabilities; the key refused
    machine = (str(tmp_path), tempfile.gettempdir() + "/", str(PACKAGE), model, sys.prefix)
    for failure in failures:
        assert "Traceback" in failure
        for path in machine:
            assert path not in failure, path
    # Nor do the notebooks of the failed runs, as far as they got, or any run's log.
    notebooks = [root / json.loads(failure)["failed_notebook"] for failure in failures]
    logs = list((root / ".cache" / "logs").rglob("*.log"))
    assert len(logs) == 3
    for kept in [*notebooks, *logs]:
        text = kept.read_text()
        for path in machine:
            assert path not in text, (kept, path)
    assert all("Traceback" in n.read_text() or "Error" in n.read_text() for n in notebooks)
