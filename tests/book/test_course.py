"""The lab of book/course.md: each student's run record, copied into one class folder, pools
with the others into one row, mean ± sd over the seeds, by `kluebook report` run there; and the
Korean of the book is where the pages say it is."""

import re
import shutil
import statistics

from conftest import valid_record

from kluebook.common.paths import CHECKOUT
from kluebook.recording.records import write_record
from kluebook.tasks import all_tasks, card_path

HANGUL = re.compile(r"[\uac00-\ud7a3]")


def student_record(seed: int, macro_f1: float) -> dict:
    """A record as `kluebook run --tasks ynat --seeds <seed>` writes it (the fields the report
    reads), in the student's own folder."""
    return {
        "task": "ynat",
        "task_version": 1,
        "model": "kluebook/tiny-roberta",
        "profile": "smoke",
        "seed": seed,
        "data_source": "generated",
        "config": "default",
        "metrics": {"macro_f1": macro_f1},
        "status": "succeeded",
        "finished_at": f"2026-01-0{seed}T10:00:00+00:00",
        "wall_time_s": 90.0,
        "device": "cpu: x86_64, 2 threads",
    }


def test_a_class_pools_its_seeds_into_mean_and_sd(kluebook, tmp_path):
    scores = {3: 61.0, 7: 64.0, 12: 70.0}
    for seed, value in scores.items():
        student = tmp_path / f"student-{seed}" / "results" / "smoke" / "ynat"
        write_record(
            student / f"kluebook--tiny-roberta-seed{seed}.json",
            valid_record(student_record(seed, value)),
        )
    pooled = tmp_path / "class" / "results" / "smoke" / "ynat"
    pooled.mkdir(parents=True)
    for path in tmp_path.glob("student-*/results/smoke/ynat/*.json"):
        shutil.copy(path, pooled)  # the course page's `cp uploads/*/... class/results/smoke/ynat/`
    result = kluebook(tmp_path / "class", "report")
    assert result.returncode == 0, result.stderr
    markdown = (tmp_path / "class/book/_generated/results.md").read_text()
    table = markdown.split('<div id="klue-table_fallback">')[1]  # the plain table
    rows = [row for row in table.split("<tr>") if "<code>kluebook/tiny-roberta</code>" in row]
    mean, sd = statistics.mean(scores.values()), statistics.stdev(scores.values())
    assert len(rows) == 1 and f"{mean:.2f} <span" in rows[0] and f"± {sd:.2f} · n=3" in rows[0]
    csv = (tmp_path / "class/book/_generated/results.csv").read_text().splitlines()
    (pooled_row,) = [line for line in csv if line.startswith("aggregate,ynat,macro_f1,")]
    assert f",3,{mean},{sd:.4f}," in pooled_row  # three seeds in one row
    status = (tmp_path / "class/book/_generated/status.md").read_text()
    for seed in scores:
        assert f"* - kluebook/tiny-roberta · smoke · seed {seed}\n  - succeeded" in status


def test_the_course_page_is_in_the_book_and_uses_the_commands_that_exist():
    toc = (CHECKOUT / "_toc.yml").read_text()
    assert "book/course" in toc and "book/glossary" in toc
    course = (CHECKOUT / "book" / "course.md").read_text()
    assert "kluebook report" in course and "--seeds <your seed>" in course
    assert 'pip install "kluebook @ git+{{ repository_url }}"' in course


def test_every_task_card_opens_with_a_korean_summary_linked_to_the_glossary():
    glossary = (CHECKOUT / "book" / "glossary.md").read_text(encoding="utf-8")
    terms = set(re.findall(r"^\[([^\]]+)\]\{\.language-ko\}$", glossary, re.MULTILINE))
    terms |= set(re.findall(r"^([A-Za-z][\w -]*)$", glossary, re.MULTILINE))
    assert {"어절", "형태소", "개체명", "의존 구문 분석", "관계 추출", "기계 독해"} <= terms
    assert {"대화 상태 추적", "자연어 추론", "의미 유사도", "주제 분류"} <= terms
    for task in all_tasks().values():
        card = card_path(task).read_text(encoding="utf-8")
        title, blank, opener, summary, closer = card.splitlines()[:5]
        assert (title, blank, opener, closer) == (
            f"# {task.title}",
            "",
            ":::{container} language-ko",
            ":::",
        ), task.name
        assert summary.startswith("**요약.**") and len(HANGUL.findall(summary)) > 60, task.name
        used = set(re.findall(r"\{term\}`([^`]+)`", summary))
        assert used and used <= terms, (task.name, used - terms)
