"""A submission written by an attacker, for the pages that show submissions: its model name and
predicted labels carry `<script>`, `"onmouseover=`, an `<img onerror>` and a `javascript:` link.
Its derived record is written as a record is (the numbers are made up: the pages that show them
are what is tested, not their scoring)."""

import datetime
import json
from pathlib import Path

import yaml

from kluebook.data.loading import file_sha256
from kluebook.submissions.derived import (
    DerivedRecord,
    Interval,
    TaskScores,
    record_path,
    write_record,
)
from kluebook.submissions.schema import Submission

MODEL = '<script>alert(1)</script> "onmouseover=alert(2) [x](javascript:alert(3)) <b>bold</b>'
LINK = "javascript:alert(4)"
LABEL = '<img src=x onerror=alert(5)> "onmouseover=alert(6) <script>alert(7)</script>'
SLUG = "hostile"


def metadata(link: str = "https://example.com/model") -> Submission:
    """The hostile metadata; `link` as given, unchecked (the schema refuses a `javascript:` link
    before any page is made: the pages must not make one a link either)."""
    return Submission.model_construct(
        model=MODEL,
        link=link,
        parameters=1_000,
        method="other",
        training_data=f"{LABEL} train",
        dev_data_used=True,
        tool=MODEL,
        tool_version="1 <i>x</i>",
        predictions_license="CC0-1.0",
        date=datetime.date(2026, 12, 7),
    )


def record(uas: float = 99.5) -> DerivedRecord:
    """A record of DP predictions (its UAS `uas`: the default above every published dev UAS)."""
    scores = TaskScores(
        predictions_file="dp.jsonl",
        predictions_sha256="0" * 64,
        gold_file="klue-dp-v1.1/klue-dp-v1.1_dev.tsv",
        gold_sha256="1" * 64,
        gold_official=True,
        kluebook_version="0.1.0",
        errata_version="test",
        official={"uas": uas, "las": 50.0},
        intervals={"uas": Interval(low=uas - 1, high=min(uas + 0.4, 100.0))},
        bootstrap={"resamples": 1000, "seed": 22, "unit": "sentence"},
        corrected={"dp-las-pad": {"las": 49.0}},
        verified_on=datetime.date(2026, 12, 7),
    )
    return DerivedRecord(format=1, slug=SLUG, metadata_sha256="2" * 64, tasks={"dp": scores})


def write_submission(root: Path, uas: float = 99.5) -> Path:
    """The hostile submission's folder under `root/submissions` with its derived record (its
    metadata as YAML with a web link, which the schema accepts)."""
    folder = root / "submissions" / SLUG
    folder.mkdir(parents=True, exist_ok=True)
    fields = metadata().model_dump(exclude_none=True)
    text = yaml.safe_dump(fields, allow_unicode=True, sort_keys=False)
    (folder / "submission.yaml").write_text(text, encoding="utf-8")
    lines = [
        {"guid": f"klue-dp-v1_dev_0000{i}", "heads": [2, 0], "deprels": [LABEL, "NP"]}
        for i in range(3)
    ]
    (folder / "dp.jsonl").write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )
    # The record of these very files, so that an offline build shows it as committed.
    made = record(uas)
    scores = made.tasks["dp"].model_copy(
        update={"predictions_sha256": file_sha256(folder / "dp.jsonl")}
    )
    made = made.model_copy(
        update={"metadata_sha256": file_sha256(folder / "submission.yaml"), "tasks": {"dp": scores}}
    )
    record_path(folder).parent.mkdir(exist_ok=True)
    write_record(record_path(folder), made)
    return folder
