"""Regenerate the importers' test fixtures (tests/submissions/fixtures/import/) with the real
tools: lm-evaluation-harness (`--log_samples`) and Inspect AI (an `.eval` and a `.json` log).

Each tool runs in a virtual environment of its own (never the project's):

    python3.11 -m venv /tmp/lmeval && /tmp/lmeval/bin/pip install lm_eval accelerate
    python3.11 -m venv /tmp/inspect && /tmp/inspect/bin/pip install inspect-ai
    PYTHONPATH=src .venv/bin/python tests/support/make_import_fixtures.py \
        --lm-eval /tmp/lmeval/bin/python --inspect /tmp/inspect/bin/python

The items are kluebook's generated smoke data (never KLUE's text): six NLI pairs and six YNAT
headlines, written as reduced copies of the dev files (`data/`, which the tests check the
imported submissions against), plus one item of neither dev file, which the importers must
report as unmapped. The NLI items carry no guid (they are mapped by their text), the YNAT items
carry theirs. lm-eval ranks the choices with the tiny random causal LM of the prompted track
(`lm_eval/`), and answers the NLI items by greedy generation too (`lm_eval_generate/`, with the
same results file); Inspect answers with its `mockllm/model`, given fixed answers. Absolute
paths the tools write (the model's and the data's folders) are replaced by `WORK`.
"""

import argparse
import importlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from kluebook.prompting.tiny_causal_lm import build_tiny_causal_lm
from kluebook.tasks import get_task, task_module, task_package

FIXTURES = Path(__file__).resolve().parents[1] / "submissions" / "fixtures" / "import"
NLI_CHOICES = ["참", "거짓", "알 수 없음"]  # the NLI prompting's answers, in its label order
NLI_LABELS = ["entailment", "contradiction", "neutral"]
DEV_SIZE = 6
STRANGER = {"premise": "이 문장은 어느 개발 파일에도 없다.", "hypothesis": "없는 문장이다."}

LM_EVAL_TASK = """\
task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    validation: {docs}
validation_split: validation
output_type: multiple_choice
doc_to_text: "{text}"
doc_to_choice: {choices}
doc_to_target: answer
metric_list:
  - metric: acc
"""

# The same NLI items answered by greedy generation (the tiny random model writes no answer).
LM_EVAL_GENERATE = """\
task: kluebook_nli_generate
dataset_path: json
dataset_kwargs:
  data_files:
    validation: {docs}
validation_split: validation
output_type: generate_until
doc_to_text: "전제: {{{{premise}}}}\\n가설: {{{{hypothesis}}}}\\n답:"
doc_to_target: target
generation_kwargs:
  until: ["\\n"]
  max_gen_toks: 4
  do_sample: false
metric_list:
  - metric: exact_match
"""

INSPECT_SCRIPT = """\
import json, sys
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import choice
from inspect_ai.solver import multiple_choice

docs, answers, log_dir = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
samples = [
    Sample(
        input=f"전제: {d['premise']}\\n가설: {d['hypothesis']}",
        choices=d["choices"],
        target="ABC"[d["answer"]],
        id=i + 1,
        metadata={"premise": d["premise"], "hypothesis": d["hypothesis"]},
    )
    for i, d in enumerate(docs)
]
def outputs():  # counted usage given, so the mock counts no tokens (its counter is online)
    made = [ModelOutput.from_content("mockllm/model", f"ANSWER: {a}") for a in answers]
    for output in made:
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return made
for log_format in ("eval", "json"):
    model = get_model("mockllm/model", custom_outputs=outputs(), memoize=False)
    eval(
        Task(dataset=samples, solver=multiple_choice(), scorer=choice(), name="kluebook_nli"),
        model=model,
        log_dir=log_dir,
        log_format=log_format,
        display="none",
        max_connections=1,
    )
# The logs with this folder's path replaced by WORK, each member of an .eval zip compressed as
# Inspect compressed it (zstd, which inspect_ai teaches zipfile).
import zipfile, pathlib
work = sys.argv[4]
for path in sorted(pathlib.Path(log_dir).iterdir()):
    if path.suffix == ".json":
        path.write_text(path.read_text(encoding="utf-8").replace(work, "WORK"), encoding="utf-8")
        continue
    with zipfile.ZipFile(path) as old:
        members = [(m, old.read(m).replace(work.encode(), b"WORK")) for m in old.infolist()]
    with zipfile.ZipFile(path, "w") as new:
        for member, content in members:
            new.writestr(member, content, compress_type=member.compress_type)
    # A copy whose members are deflated, which a Python without zstandard reads.
    with zipfile.ZipFile(path.with_suffix(".deflate.eval"), "w", zipfile.ZIP_DEFLATED) as new:
        for member, content in members:
            new.writestr(member.filename, content)
"""


def smoke_items(fixtures: Path) -> dict[str, list[dict]]:
    """Six generated dev items of NLI and of YNAT, written as reduced copies of the dev files."""
    items = {}
    for name, train in (("nli", 12), ("ynat", 14)):
        task = get_task(name)
        records = task_module(task).generate(seed=0, train_size=train, dev_size=DEV_SIZE)["dev"]
        path = fixtures / "data" / task.files["dev"].replace(".json", ".partial.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        task_module(task).write_official(records, path)
        items[name] = task_module(task).read_official(path)
    return items


def run_lm_eval(python: str, items: dict[str, list[dict]], work: Path, fixtures: Path) -> None:
    nli_docs = [
        {"premise": r["premise"], "hypothesis": r["hypothesis"], "answer": 0} for r in items["nli"]
    ] + [{**STRANGER, "answer": 2}]
    ynat = importlib.import_module(f"{task_package(get_task('ynat')).__name__}.data").LABELS
    ynat_docs = [
        {"guid": r["guid"], "title": r["title"], "answer": ynat.index(r["label"])}
        for r in items["ynat"]
    ]
    tasks = {
        "kluebook_nli": (nli_docs, "전제: {{premise}}\\n가설: {{hypothesis}}\\n답:", NLI_CHOICES),
        "kluebook_ynat": (ynat_docs, "제목: {{title}}\\n주제:", list(ynat)),
    }
    for name, (docs, text, choices) in tasks.items():
        (work / f"{name}.jsonl").write_text(
            "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs)
        )
        (work / f"{name}.yaml").write_text(
            LM_EVAL_TASK.format(
                name=name,
                docs=work / f"{name}.jsonl",
                text=text,
                choices=json.dumps(choices, ensure_ascii=False),
            )
        )
    generate_docs = [{**d, "target": NLI_CHOICES[d["answer"]]} for d in nli_docs]
    (work / "kluebook_nli_generate.jsonl").write_text(
        "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in generate_docs)
    )
    (work / "kluebook_nli_generate.yaml").write_text(
        LM_EVAL_GENERATE.format(docs=work / "kluebook_nli_generate.jsonl")
    )
    texts = [d.get("premise", "") + d.get("hypothesis", "") + d.get("title", "") for d in nli_docs]
    model = build_tiny_causal_lm(texts + [c for _, _, cs in tasks.values() for c in cs])
    local_model = work / "tiny-causal-lm"
    shutil.copytree(model, local_model)
    out = work / "lm-eval-out"
    subprocess.run(
        [
            python, "-m", "lm_eval", "run", "--model", "hf",
            "--model_args", f"pretrained={local_model},dtype=float32",
            "--tasks", ",".join([*tasks, "kluebook_nli_generate"]), "--include_path", str(work),
            "--output_path", str(out), "--log_samples", "--device", "cpu",
            "--batch_size", "4", "--seed", "0",
        ],
        check=True,
        env={"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "PATH": "/usr/bin:/bin",
             "HOME": str(work)},
    )  # fmt: skip
    # The generated answers apart, as another run's output (a submission has one file a task);
    # the results file beside both.
    for folder in ("lm_eval", "lm_eval_generate"):
        shutil.rmtree(fixtures / folder, ignore_errors=True)
        (fixtures / folder).mkdir(parents=True)
    for path in sorted(out.rglob("*.json*")):
        generated = path.name.startswith("samples_kluebook_nli_generate_")
        both = path.name.startswith("results_")
        for folder in ("lm_eval",) * (both or not generated) + ("lm_eval_generate",) * (
            both or generated
        ):
            scrub(path, fixtures / folder / path.name, work)


def run_inspect(python: str, items: dict[str, list[dict]], work: Path, fixtures: Path) -> None:
    docs = [
        {"premise": r["premise"], "hypothesis": r["hypothesis"], "choices": NLI_CHOICES}
        for r in items["nli"]
    ] + [{**STRANGER, "choices": NLI_CHOICES}]
    for d, r in zip(docs, items["nli"], strict=False):
        d["answer"] = NLI_LABELS.index(r["gold_label"])
    docs[-1]["answer"] = 2
    # The mock model answers the gold choice, except the first item's, which it gets wrong.
    answers = ["ABC"[d["answer"]] for d in docs]
    answers[0] = "ABC"[(docs[0]["answer"] + 1) % 3]
    (work / "docs.json").write_text(json.dumps(docs, ensure_ascii=False))
    (work / "answers.json").write_text(json.dumps(answers))
    (work / "inspect_task.py").write_text(INSPECT_SCRIPT)
    logs = work / "inspect-logs"
    subprocess.run(
        [python, str(work / "inspect_task.py"), str(work / "docs.json"),
         str(work / "answers.json"), str(logs), str(work)],
        check=True,
        cwd=work,
        env={"PATH": "/usr/bin:/bin", "HOME": str(work), "INSPECT_LOG_LEVEL": "warning"},
    )  # fmt: skip
    target = fixtures / "inspect"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for path in sorted(logs.iterdir()):
        shutil.copyfile(path, target / ("kluebook_nli" + "".join(path.suffixes[-2:])))


def sanitized(work: Path) -> str:
    """A path as lm-eval names its output folder after it."""
    return str(work).replace("/", "__")


def scrub(source: Path, target: Path, work: Path) -> None:
    """A log copied with the temporary folder's path replaced by `WORK`."""
    text = source.read_text(encoding="utf-8")
    target.write_text(text.replace(str(work), "WORK").replace(sanitized(work), "WORK"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lm-eval", help="a Python that imports lm_eval")
    parser.add_argument("--inspect", help="a Python that imports inspect_ai")
    parser.add_argument("--out", type=Path, default=FIXTURES, help="where (default: %(default)s)")
    args = parser.parse_args()
    items = smoke_items(args.out)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        if args.lm_eval:
            run_lm_eval(args.lm_eval, items, work, args.out)
        if args.inspect:
            run_inspect(args.inspect, items, work, args.out)
    print(f"fixtures written under {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
