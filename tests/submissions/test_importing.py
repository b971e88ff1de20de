"""`kluebook.submissions.importing`: the importers, on logs the real tools wrote (the fixtures
of tests/support/make_import_fixtures.py: lm-eval 0.4.13, inspect-ai 0.3.285), on a kluebook
run's record, on bad input, and on the real dev files where KLUEBOOK_DATA_DIR has them."""

import datetime
import importlib.util
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from conftest import valid_record

from kluebook.common.errors import KluebookError
from kluebook.common.paths import KLUE_DATA
from kluebook.recording.records import write_record
from kluebook.submissions.files import Limits
from kluebook.submissions.importing import ItemIndex, import_submission
from kluebook.submissions.schema import read_submission
from kluebook.submissions.tool_logs import ToolItem
from kluebook.tasks import get_task, task_module
from kluebook.tasks.prompt_items import PromptItem

FIXTURES = Path(__file__).parent / "fixtures" / "import"
DATA = FIXTURES / "data"
LM_EVAL = FIXTURES / "lm_eval"
INSPECT = FIXTURES / "inspect"
GIVEN = {
    "link": "https://example.org/tiny",
    "training_data": "nothing: random weights",
    "dev_data_used": False,
    "predictions_license": "CC0-1.0",
}
# The NLI prompt's answers and what each stands for (kluebook.tasks.nli.prompting).
NLI_ANSWERS = {"참": "entailment", "거짓": "contradiction", "알 수 없음": "neutral"}


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def dev(task: str) -> list[dict]:
    path = DATA / get_task(task).files["dev"].replace(".json", ".partial.json")
    return task_module(get_task(task)).read_official(path)


def guid_of_pair(premise: str, hypothesis: str) -> str | None:
    found = [
        r["guid"] for r in dev("nli") if (r["premise"], r["hypothesis"]) == (premise, hypothesis)
    ]
    return found[0] if found else None


def test_lm_eval_samples_become_a_submission_that_passes_the_check(tmp_path):
    folder = tmp_path / "tiny-lm-eval"
    report = import_submission([LM_EVAL], folder, {**GIVEN, "model": "tiny"}, DATA)
    assert report.check.all_problems == []
    by_task = {t.task: t for t in report.tasks}
    ynat, nli = by_task["ynat"], by_task["nli"]
    assert (ynat.items, len(ynat.lines), ynat.by_guid, ynat.by_text) == (6, 6, 6, 0)
    assert (nli.items, len(nli.lines), nli.by_guid, nli.by_text) == (7, 6, 0, 6)
    [(why, tally)] = nli.left_out.items()
    assert why == "not mapped (its text matches no dev item)" and tally.count == 1
    assert tally.first[0].endswith(".jsonl line 7")
    assert "reduced copy" in nli.gold
    # Each answer, worked out from the log: the choice of the highest log-likelihood, named by
    # its continuation; lm-eval's own `acc` (target: the first choice) agrees with it.
    [samples] = LM_EVAL.glob("samples_kluebook_nli_*.jsonl")
    expected = []
    for row in read_lines(samples):
        scores = [float(response[0]) for response in row["filtered_resps"]]
        best = scores.index(max(scores))
        guid = guid_of_pair(row["doc"]["premise"], row["doc"]["hypothesis"])
        assert (best == 0) == (row["acc"] == 1.0)
        if guid:
            answer = row["arguments"][f"gen_args_{best}"]["arg_1"].strip()
            expected.append({"guid": guid, "label": NLI_ANSWERS[answer]})
    assert read_lines(folder / "nli.jsonl") == expected
    submission, problems = read_submission(folder / "submission.yaml")
    assert problems == []
    results = json.loads(next(LM_EVAL.glob("results_*.json")).read_text())
    assert submission.tool == "lm-evaluation-harness"
    assert submission.tool_version == results["lm_eval_version"] == "0.4.13"
    assert submission.parameters == results["config"]["model_num_parameters"]
    assert submission.method == "prompted" and submission.model == "tiny"
    assert submission.date == datetime.datetime.fromtimestamp(results["date"], datetime.UTC).date()


def test_a_models_path_is_never_taken_for_its_name(tmp_path):
    log = tmp_path / "log"
    shutil.copytree(LM_EVAL, log)
    [results_file] = log.glob("results_*.json")
    results = json.loads(results_file.read_text())
    for name, taken in (
        ("/home/me/models/tiny", None),
        ("klue/roberta-large", "klue/roberta-large"),
    ):
        results_file.write_text(json.dumps({**results, "model_name": name}))
        folder = tmp_path / f"x{len(name)}"
        if taken is None:
            with pytest.raises(KluebookError, match=r"give: model \(--model\)$"):
                import_submission([log], folder, GIVEN, DATA)
            assert not folder.exists()
        else:
            import_submission([log], folder, GIVEN, DATA)
            assert read_submission(folder / "submission.yaml")[0].model == taken


def test_missing_metadata_is_named_with_its_option_and_nothing_is_written(tmp_path):
    with pytest.raises(KluebookError) as error:
        import_submission([INSPECT / "kluebook_nli.json"], tmp_path / "x", {}, DATA)
    message = str(error.value)
    assert message.startswith("the sources do not say, so give: ")
    for named in ("link (--link)", "parameters (--parameters)", "--training-data", "--license"):
        assert named in message
    for said in ("model (", "tool (", "tool_version", "date (", "method ("):
        assert said not in message
    assert list(tmp_path.iterdir()) == []


def inspect_given() -> dict:
    return {**GIVEN, "parameters": 0}


def test_an_inspect_json_log_becomes_a_submission(tmp_path):
    log = json.loads((INSPECT / "kluebook_nli.json").read_text())
    folder = tmp_path / "mock-inspect"
    report = import_submission([INSPECT / "kluebook_nli.json"], folder, inspect_given(), DATA)
    assert report.check.all_problems == []
    [nli] = report.tasks
    assert (nli.items, len(nli.lines), nli.by_text) == (7, 6, 6)
    assert nli.left_out["not mapped (its text matches no dev item)"].first == [
        "kluebook_nli.json sample 7"
    ]
    gold = {r["guid"]: r["gold_label"] for r in dev("nli")}
    lines = read_lines(folder / "nli.jsonl")
    # The tool's own scorer: C(orrect) exactly where the imported label is the gold one.
    for line, sample in zip(lines, log["samples"], strict=False):
        assert (
            guid_of_pair(*sample["input"].removeprefix("전제: ").split("\n가설: ")) == line["guid"]
        )
        assert (line["label"] == gold[line["guid"]]) == (sample["scores"]["choice"]["value"] == "C")
    assert sum(line["label"] != gold[line["guid"]] for line in lines) == 1
    submission, _ = read_submission(folder / "submission.yaml")
    assert (submission.tool, submission.tool_version) == ("Inspect AI", "0.3.285")
    assert submission.model == "mockllm/model"
    assert submission.date == datetime.date.fromisoformat(log["eval"]["created"][:10])


def test_an_eval_log_gives_what_its_json_log_gives(tmp_path):
    json_log = import_submission(
        [INSPECT / "kluebook_nli.json"], tmp_path / "a", inspect_given(), DATA
    )
    deflated = import_submission(
        [INSPECT / "kluebook_nli.deflate.eval"], tmp_path / "b", inspect_given(), DATA
    )
    assert deflated.check.all_problems == []
    assert [t.lines for t in deflated.tasks] == [t.lines for t in json_log.tasks]
    # As Inspect writes it today, Zstandard-compressed: read where `zstandard` is installed.
    if importlib.util.find_spec("zstandard") is None:
        with pytest.raises(KluebookError, match=r"Zstandard-compressed.*inspect log convert"):
            import_submission(
                [INSPECT / "kluebook_nli.eval"], tmp_path / "c", inspect_given(), DATA
            )
    else:
        zstd = import_submission(
            [INSPECT / "kluebook_nli.eval"], tmp_path / "c", inspect_given(), DATA
        )
        assert [t.lines for t in zstd.tasks] == [t.lines for t in json_log.tasks]


def write_run(results: Path, lines: list[dict], task: str = "nli", **fields) -> Path:
    record = valid_record({"task": task, "profile": "paper", "data_source": "official", **fields})
    path = results / "paper" / task / "klue--roberta-large-seed1.json"
    path.parent.mkdir(parents=True)
    write_record(path, record)
    path.with_suffix(".predictions.jsonl").write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    )
    return path


def test_a_kluebook_run_becomes_a_submission_in_one_call(tmp_path):
    lines = task_module(get_task("nli")).gold_predictions(dev("nli"), {})
    stranger = {"guid": "klue-nli-v1_dev_99999", "label": "neutral"}
    scores = {"참": -0.5, "거짓": -2.0, "알 수 없음": -3.0}
    as_run = [{**line, "choice_logprobs": scores, "item_prompt": "전제: …"} for line in lines]
    path = write_run(tmp_path, [*as_run, stranger], model="klue/roberta-large")
    given = {**GIVEN, "dev_data_used": True, "parameters": 337_000_000}
    report = import_submission([path], tmp_path / "roberta", given, DATA)
    assert report.check.all_problems == []
    [nli] = report.tasks
    assert (nli.items, nli.by_guid, len(nli.lines)) == (7, 6, 6)
    assert nli.left_out["a guid of no dev item"].first == ["klue-nli-v1_dev_99999"]
    # The dev item's text a prompted run keeps beside its answer is never written.
    assert nli.dropped_fields == {"item_prompt"}
    written = [{**line, "choice_logprobs": scores} for line in lines]
    assert read_lines(tmp_path / "roberta" / "nli.jsonl") == written
    submission, _ = read_submission(tmp_path / "roberta" / "submission.yaml")
    assert (submission.model, submission.method, submission.tool) == (
        "klue/roberta-large",
        "fine-tuned",
        "kluebook",
    )
    assert submission.date == datetime.date(2026, 1, 2) and submission.dev_data_used


def test_a_models_runs_of_several_tasks_make_one_submission(tmp_path):
    runs = [
        write_run(
            tmp_path,
            task_module(get_task(task)).gold_predictions(dev(task), {}),
            task,
            model="klue/roberta-large",
            finished_at=f"2026-03-0{day}T10:00:00+00:00",
        )
        for task, day in (("nli", 4), ("ynat", 2))
    ]
    given = {**GIVEN, "parameters": 337_000_000}
    report = import_submission(runs, tmp_path / "roberta", given, DATA)
    assert report.check.all_problems == []
    assert [(t.task, len(t.lines)) for t in report.tasks] == [("ynat", 6), ("nli", 6)]
    submission, _ = read_submission(tmp_path / "roberta" / "submission.yaml")
    assert submission.date == datetime.date(2026, 3, 4)  # the later run's day
    other = write_run(tmp_path / "other", [], "nli", model="klue/bert-base")
    with pytest.raises(KluebookError, match=r"disagree on model .* give it with --model$"):
        import_submission([runs[1], other], tmp_path / "mixed", given, DATA)


def test_a_failed_run_and_a_refused_value_are_named(tmp_path):
    failed = write_run(tmp_path / "a", [], status="failed")
    with pytest.raises(KluebookError, match="the run failed: it has no predictions"):
        import_submission([failed], tmp_path / "x", GIVEN, DATA)
    lines = task_module(get_task("nli")).gold_predictions(dev("nli"), {})
    lines[0] = {**lines[0], "label": 2}  # a hub copy's class id
    path = write_run(tmp_path / "b", lines)
    report = import_submission([path], tmp_path / "y", {**GIVEN, "parameters": 1}, DATA)
    [nli] = report.tasks
    assert list(nli.left_out) == ["an answer refused (hub label id)"]
    assert report.check.all_problems == [f"nli.jsonl: 1 missing guids: {lines[0]['guid']}"]


def rewritten_samples(tmp_path: Path, change) -> Path:
    """The fixture's NLI samples file with each row passed through `change`, its results file
    beside it."""
    [samples] = LM_EVAL.glob("samples_kluebook_nli_*.jsonl")
    folder = tmp_path / "log"
    folder.mkdir()
    [results] = LM_EVAL.glob("results_*.json")
    shutil.copyfile(results, folder / results.name)
    rows = [change(row) for row in read_lines(samples)]
    (folder / samples.name).write_text(
        "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    )
    return folder / samples.name


def test_answers_outside_the_tasks_are_refused_unless_mapped(tmp_path):
    def english(row):  # lm-eval choices in other words: a label's name, and a word of no task
        words = {" 참": " entailment", " 거짓": " no", " 알 수 없음": " neutral"}
        for argument in row["arguments"].values():
            argument["arg_1"] = words[argument["arg_1"]]
        return row

    samples = rewritten_samples(tmp_path, english)
    given = {**GIVEN, "model": "tiny"}
    report = import_submission([samples], tmp_path / "a", given, DATA)
    [nli] = report.tasks
    refused = nli.left_out["an answer outside the task's"]
    assert refused.count == 5 and refused.first[0].endswith("line 1 'no'")
    assert read_lines(tmp_path / "a" / "nli.jsonl") == [
        {"guid": "klue-nli-v1_dev_00005", "label": "entailment"}
    ]
    assert report.check.all_problems  # five dev items have no prediction
    mapped = import_submission(
        [samples], tmp_path / "b", given, DATA, answers={"no": "contradiction"}
    )
    assert mapped.check.all_problems == []
    assert [line["label"] for line in mapped.tasks[0].lines] == ["contradiction"] * 5 + [
        "entailment"
    ]


def test_the_earlier_lm_eval_layout_of_arguments_and_scores_is_read(tmp_path):
    def earlier(row):  # [[context, continuation], ...] and numbers, as earlier lm-eval logged
        row["arguments"] = [[a["arg_0"], a["arg_1"]] for a in row["arguments"].values()]
        row["filtered_resps"] = [[float(r[0]), r[1] == "True"] for r in row["filtered_resps"]]
        return row

    given = {**GIVEN, "model": "tiny"}
    now = import_submission([LM_EVAL], tmp_path / "a", given, DATA)
    then = import_submission([rewritten_samples(tmp_path, earlier)], tmp_path / "b", given, DATA)
    assert [t.lines for t in then.tasks] == [t.lines for t in now.tasks if t.task == "nli"]


def test_a_task_name_that_says_no_task_must_be_given(tmp_path):
    samples = rewritten_samples(tmp_path, lambda row: row)
    renamed = samples.with_name(samples.name.replace("kluebook_nli", "entailment_test"))
    samples.rename(renamed)
    given = {**GIVEN, "model": "tiny"}
    with pytest.raises(KluebookError, match=r"--task entailment_test=<one of ynat, "):
        import_submission([renamed], tmp_path / "a", given, DATA)
    report = import_submission([renamed], tmp_path / "b", given, DATA, {"entailment_test": "nli"})
    assert report.check.all_problems == []


def test_bad_input_is_one_line(tmp_path):
    given = {**GIVEN, "model": "tiny", "parameters": 1}
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(KluebookError, match=r"^notes.txt: not a known tool's output"):
        import_submission([tmp_path / "notes.txt"], tmp_path / "a", given, DATA)
    broken = rewritten_samples(tmp_path, lambda row: row)
    broken.write_text(broken.read_text() + "{not json\n")
    with pytest.raises(KluebookError, match=r"samples_kluebook_nli_.*\.jsonl:8: not valid JSON"):
        import_submission([broken], tmp_path / "a", given, DATA)
    with pytest.raises(KluebookError, match="already exists"):
        import_submission([LM_EVAL], tmp_path, given, DATA)
    with pytest.raises(KluebookError, match="slug"):
        import_submission([LM_EVAL], tmp_path / "Not A Slug", given, DATA)
    (tmp_path / "a.json").write_text("[1, 2]")
    with pytest.raises(KluebookError, match=r"^a.json: not an Inspect eval log"):
        import_submission([tmp_path / "a.json"], tmp_path / "b", given, DATA)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "log", "notes.txt"]


def test_an_eval_log_unpacking_past_its_limit_is_refused(tmp_path):
    bomb = tmp_path / "bomb.eval"
    with (
        zipfile.ZipFile(INSPECT / "kluebook_nli.deflate.eval") as old,
        zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as new,
    ):
        for member in old.infolist():
            new.writestr(member.filename, old.read(member))
        new.writestr("samples/8_epoch_1.json", b" " * 5_000_000)
    assert bomb.stat().st_size < 100_000
    limits = Limits(line_bytes=2**16)
    with pytest.raises(KluebookError, match=r"samples/8_epoch_1\.json: over the size limit"):
        import_submission([bomb], tmp_path / "x", inspect_given(), DATA, limits=limits)


@pytest.mark.realdata
def test_a_log_of_the_real_dev_files_is_mapped_by_text_and_passes_the_check(tmp_path, klue_file):
    """lm-eval samples shaped as the fixture's, of every real NLI and YNAT dev item, without
    their guids (made here, never committed): each is found by its text, and the submission
    passes the check against the real files and scores 100."""
    nli_file = klue_file("klue-nli-v1.1/klue-nli-v1.1_dev.json")
    ynat_file = klue_file("ynat-v1.1/ynat-v1.1_dev.json", "ynat-v1.1/ynat-v1.1_dev.partial.json")
    [samples] = LM_EVAL.glob("samples_kluebook_nli_*.jsonl")
    template = read_lines(samples)[0]
    words = {label: word for word, label in NLI_ANSWERS.items()}
    log = tmp_path / "log"
    log.mkdir()
    rows = []
    for number, record in enumerate(task_module(get_task("nli")).read_official(nli_file)):
        answers = list(words.values())
        rows.append(
            {
                **template,
                "doc_id": number,
                "doc": {"premise": record["premise"], "hypothesis": record["hypothesis"]},
                "arguments": {
                    f"gen_args_{i}": {"arg_0": "...", "arg_1": f" {answer}"}
                    for i, answer in enumerate(answers)
                },
                "filtered_resps": [
                    [str(-1.0 if answer == words[record["gold_label"]] else -3.0), "False"]
                    for answer in answers
                ],
            }
        )
    ynat_records = task_module(get_task("ynat")).read_official(ynat_file)
    labels = sorted({r["label"] for r in ynat_records})
    ynat_rows = [
        {
            **template,
            "doc_id": number,
            "doc": {"title": record["title"]},
            "arguments": {
                f"gen_args_{i}": {"arg_0": "...", "arg_1": f" {label}"}
                for i, label in enumerate(labels)
            },
            "filtered_resps": [
                [str(-1.0 if label == record["label"] else -3.0), "False"] for label in labels
            ],
        }
        for number, record in enumerate(ynat_records)
    ]
    for task, task_rows in (("klue_nli", rows), ("klue_ynat", ynat_rows)):
        (log / f"samples_{task}_2026-12-07T00-00-00.000000.jsonl").write_text(
            "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in task_rows)
        )
    given = {**GIVEN, "model": "oracle", "parameters": 0, "tool_version": "0.4.13"}
    given["date"] = datetime.date(2026, 12, 7)
    report = import_submission([log], tmp_path / "oracle", given, KLUE_DATA)
    assert report.check.all_problems == []
    for imported in report.tasks:
        assert imported.left_out == {} and imported.by_text == imported.items
    assert {t.task: len(t.lines) for t in report.tasks} == {
        "nli": 3000,
        "ynat": len(ynat_records),
    }
    for imported in report.tasks:
        task = get_task(imported.task)
        records = task_module(task).read_official(nli_file if imported.task == "nli" else ynat_file)
        predictions = {line["guid"]: line for line in imported.lines}
        metric = task.metrics[0].key
        assert task_module(task).score(records, predictions, {})[metric] == pytest.approx(100.0)


def test_an_item_is_found_by_its_fields_each_at_its_own_place():
    """Text matching never gives an item a wrong guid: a field found only inside another field
    does not count, a pair whose hypothesis is part of another's loses to that pair, and a text
    that holds two items (demonstrations from dev) or two items with the same text map to none.
    """
    premise = "원래 계획대로라면 수리가 끝나야 하지만, 현재 수리가 늦어지고 있다."
    items = [
        PromptItem("a", {"premise": premise, "hypothesis": "수리가 모두 끝났다."}, ""),
        PromptItem("b", {"premise": premise, "hypothesis": "현재 수리가 늦어지고 있다."}, ""),
        PromptItem(
            "c", {"premise": premise, "hypothesis": "수리가 모두 끝났다. 발사는 미뤄졌다."}, ""
        ),
        PromptItem("d", {"premise": "같은 문장.", "hypothesis": "같은 가설."}, ""),
        PromptItem("e", {"premise": "같은 문장.", "hypothesis": "같은 가설."}, ""),
    ]
    index = ItemIndex(items)

    def found(*texts: str, guid: str | None = None):
        item, how = index.find(ToolItem("here", guid, texts, "참"))
        return (item.key if item else None), how

    def rendered(item: PromptItem) -> str:
        return f"전제: {item.fields['premise']}\n가설: {item.fields['hypothesis']}\n답:"

    assert found(rendered(items[0])) == ("a", "text")  # not b, whose hypothesis is in the premise
    assert found(rendered(items[1])) == ("b", "text")
    assert found(rendered(items[2])) == ("c", "text")  # not a, whose hypothesis is part of c's
    assert found(premise, "  수리가 모두\n끝났다. ") == ("a", "text")  # fields as given, spaced
    assert found(rendered(items[0]) + "\n\n" + rendered(items[1]))[0] is None
    assert found(rendered(items[3])) == (None, "matches more than one dev item")
    assert found(rendered(items[3]), guid="e") == ("e", "guid")
    assert found("다른 문장.") == (None, "its text matches no dev item")


@pytest.mark.realdata
def test_rendered_prompts_of_the_real_dev_file_find_their_items(tmp_path, klue_file):
    """An Inspect log shaped as the fixture's whose samples keep only the rendered prompt (no
    metadata, no guid) of every real NLI dev pair: each pair is found at its own place in its
    prompt (some hypotheses are part of their premise), and the submission scores 100."""
    nli_file = klue_file("klue-nli-v1.1/klue-nli-v1.1_dev.json")
    records = task_module(get_task("nli")).read_official(nli_file)
    log = json.loads((INSPECT / "kluebook_nli.json").read_text())
    [template] = log["samples"][:1]
    labels = list(NLI_ANSWERS.values())  # in the order of the samples' choices
    log["samples"] = [
        {
            **template,
            "id": number + 1,
            "input": f"전제: {record['premise']}\n가설: {record['hypothesis']}",
            "metadata": {},
            "scores": {
                "choice": {"value": "C", "answer": "ABC"[labels.index(record["gold_label"])]}
            },
        }
        for number, record in enumerate(records)
    ]
    path = tmp_path / "nli.json"
    path.write_text(json.dumps(log, ensure_ascii=False))
    report = import_submission([path], tmp_path / "oracle", inspect_given(), KLUE_DATA)
    assert report.check.all_problems == []
    [nli] = report.tasks
    assert (nli.by_text, len(nli.lines), nli.left_out) == (3000, 3000, {})
    predictions = {line["guid"]: line for line in nli.lines}
    assert task_module(get_task("nli")).score(records, predictions, {})["accuracy"] == 100.0


def test_generated_answers_are_read_as_the_task_reads_them(tmp_path):
    """lm-eval's generate_until output (the tiny random model writes no answer of the task):
    every answer is refused, unless `answers` says what it stands for."""
    [samples] = (FIXTURES / "lm_eval_generate").glob("samples_*.jsonl")
    texts = [row["filtered_resps"][0] for row in read_lines(samples)]
    given = {**GIVEN, "model": "tiny"}
    with pytest.raises(KluebookError, match=r"^no item of nli could be imported; nothing written$"):
        import_submission([samples], tmp_path / "a", given, DATA)
    assert not (tmp_path / "a").exists()
    unread = texts[2]
    answers = {text.strip(): "알 수 없음" for text in texts if text != unread}
    report = import_submission([samples], tmp_path / "b", given, DATA, answers=answers)
    [nli] = report.tasks
    assert [line["label"] for line in nli.lines] == ["neutral"] * 5
    assert nli.left_out["an answer outside the task's"].first == [
        f"{samples.name} line 3 {unread.strip()!r}"
    ]
    assert report.check.all_problems == ["nli.jsonl: 1 missing guids: klue-nli-v1_dev_00002"]


def test_a_kluebook_wos_run_is_keyed_by_user_turn(tmp_path):
    """A WoS run's lines are keyed by (dialogue, user turn), many to a dialogue record; a
    refused state is left out and named."""

    task = get_task("wos")
    module = task_module(task)
    data = tmp_path / "data"
    path = data / task.files["dev"].replace(".json", ".partial.json")
    path.parent.mkdir(parents=True)
    module.write_official(module.generate(seed=2, **task.smoke_data)["dev"], path)
    lines = module.gold_predictions(module.read_official(path), {})
    lines[1] = {**lines[1], "state": "관광-종류-공원"}
    run = write_run(tmp_path / "results", lines, "wos")
    report = import_submission([run], tmp_path / "m", {**GIVEN, "parameters": 1}, data)
    [wos] = report.tasks
    assert (wos.items, len(wos.lines)) == (len(lines), len(lines) - 1)
    assert list(wos.left_out) == ["an answer refused (state that is not a list of strings)"]
    assert report.check.all_problems == [
        f"wos.jsonl: 1 missing guids: {lines[1]['guid']} turn {lines[1]['turn']}"
    ]
