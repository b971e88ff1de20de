"""KLUE-MRC: extractive question answering with unanswerable questions (see README.md here).

The official file nests questions in paragraphs in articles (SQuAD v2 layout); the project works on
one flat record per question:
{guid, title, source, news_category, context, question, answers: [{text, answer_start}],
 question_type (1 paraphrase, 2 multi-sentence, 3 unanswerable), is_impossible, plausible_answers}.
"""

from collections.abc import Iterable
from itertools import groupby
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_json, write_json
from kluebook.scoring.switches import NO_SWITCHES, Switches
from kluebook.tasks.interface import LineProblem

from .metric import mrc_scores

QUESTION_TYPES = (1, 2, 3)
_ARTICLE_FIELDS = ("title", "source", "news_category")


def read_official(path: str | Path) -> list[dict]:
    """Questions of an official KLUE-MRC file, one flat record each, in file order."""
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise KluebookError(f'{path}: not a KLUE-MRC file (expected {{"version", "data": [...]}})')
    records = []
    for article in data["data"]:
        if not isinstance(article, dict) or not isinstance(article.get("paragraphs"), list):
            raise KluebookError(f"{path}: not a KLUE-MRC file (an article lacks paragraphs)")
        for paragraph in article["paragraphs"]:
            if not isinstance(paragraph.get("context"), str) or not isinstance(
                paragraph.get("qas"), list
            ):
                raise KluebookError(f"{path}: not a KLUE-MRC file (a paragraph lacks context/qas)")
            for qa in paragraph["qas"]:
                records.append(_question_record(path, article, paragraph["context"], qa))
    return records


def _question_record(path: str | Path, article: dict, context: str, qa: dict) -> dict:
    if (
        not isinstance(qa, dict)
        or not {"guid", "question", "answers", "is_impossible"} <= qa.keys()
    ):
        raise KluebookError(
            f"{path}: not a KLUE-MRC file (a question lacks guid, question, answers "
            "or is_impossible)"
        )
    guid = qa["guid"]
    if qa.get("question_type") not in QUESTION_TYPES:
        raise KluebookError(f"{path}: {guid}: unknown question_type {qa.get('question_type')!r}")
    if not isinstance(qa["is_impossible"], bool):
        raise KluebookError(f"{path}: {guid}: is_impossible must be true or false")
    return {
        "guid": guid,
        **{field: article.get(field) for field in _ARTICLE_FIELDS},
        "context": context,
        "question": qa["question"],
        "answers": _answer_list(path, guid, qa["answers"]),
        "question_type": qa["question_type"],
        "is_impossible": qa["is_impossible"],
        "plausible_answers": _answer_list(path, guid, qa.get("plausible_answers", [])),
    }


def _answer_list(path: str | Path, guid: str, answers: object) -> list[dict]:
    if not isinstance(answers, list) or not all(
        isinstance(a, dict)
        and isinstance(a.get("text"), str)
        and isinstance(a.get("answer_start"), int)
        for a in answers
    ):
        raise KluebookError(f"{path}: {guid}: answers must be a list of {{text, answer_start}}")
    return [{"text": a["text"], "answer_start": a["answer_start"]} for a in answers]


def write_official(records: Iterable[dict], path: str | Path, version: str = "v1.1") -> None:
    """Write flat question records in the nested official layout.

    Consecutive questions of the same article (title, source, news_category) form one article and,
    within it, consecutive questions on the same context form one paragraph.
    """
    articles = []
    for article_key, article_records in groupby(
        records, key=lambda r: tuple(r.get(f) for f in _ARTICLE_FIELDS)
    ):
        paragraphs = [
            {"context": context, "qas": [_qa_entry(r) for r in paragraph_records]}
            for context, paragraph_records in groupby(article_records, key=lambda r: r["context"])
        ]
        articles.append(
            {**dict(zip(_ARTICLE_FIELDS, article_key, strict=True)), "paragraphs": paragraphs}
        )
    write_json(path, {"version": version, "data": articles})


def _qa_entry(record: dict) -> dict:
    entry = {
        "question": record["question"],
        "answers": [dict(a) for a in record["answers"]],
        "guid": record["guid"],
        "question_type": record["question_type"],
        "is_impossible": record["is_impossible"],
    }
    if record["is_impossible"] or record.get("plausible_answers"):
        entry["plausible_answers"] = [dict(a) for a in record.get("plausible_answers", [])]
    return entry


def from_hub(rows: Iterable[dict]) -> list[dict]:
    """Hub rows as official records.

    The hub appends the plausible answers of an unanswerable question to its `answers`; here they
    go back to `plausible_answers` and the gold answers of such a question are empty. The hub also
    strips contexts and answer texts, which can move an answer away from its `answer_start`: each
    answer is put at the occurrence of its text nearest to the stated start.
    """
    records = []
    for row in rows:
        context = row["context"]
        answers = [
            {"text": text, "answer_start": locate_answer(context, text, start)}
            for text, start in _hub_answers(row["answers"])
        ]
        impossible = bool(row["is_impossible"])
        records.append(
            {
                "guid": row["guid"],
                **{field: row.get(field) for field in _ARTICLE_FIELDS},
                "context": context,
                "question": row["question"],
                "answers": [] if impossible else answers,
                "question_type": int(row["question_type"]),
                "is_impossible": impossible,
                "plausible_answers": answers if impossible else [],
            }
        )
    return records


def _hub_answers(answers: dict | list) -> list[tuple[str, int]]:
    """(text, start) pairs from the hub's column layout {text: [...], answer_start: [...]}."""
    if isinstance(answers, dict):
        return list(zip(answers["text"], answers["answer_start"], strict=True))
    return [(a["text"], a["answer_start"]) for a in answers]


def locate_answer(context: str, text: str, start: int) -> int:
    """`start` if the answer is there, else the occurrence of `text` nearest to it (or `start`)."""
    if context[start : start + len(text)] == text or not text:
        return start
    occurrences = []
    position = context.find(text)
    while position != -1:
        occurrences.append(position)
        position = context.find(text, position + 1)
    return min(occurrences, key=lambda p: abs(p - start)) if occurrences else start


def gold_answers(record: dict) -> list[str]:
    """The scoring gold of a question: its answer texts, none at all if it is unanswerable."""
    return [] if record["is_impossible"] else [a["text"] for a in record["answers"]]


def score(records: list[dict], predictions: dict, switches: Switches = NO_SWITCHES) -> dict:
    """Official EM and ROUGE-W of {guid: {"answer": text}} predictions ("" = no answer), and both
    with the bracket pattern corrected (`_brackets_stripped`)."""
    answers = []
    for record in records:
        answer = predictions[record["guid"]].get("answer")
        if not isinstance(answer, str):
            raise KluebookError(f"{record['guid']}: answer must be a string, got {answer!r}")
        answers.append(answer)
    gold = [gold_answers(r) for r in records]
    corrected = mrc_scores(gold, answers, corrected=True)
    return {
        **mrc_scores(gold, answers),
        **{f"{key}_brackets_stripped": value for key, value in corrected.items()},
    }


def gold_predictions(records: list[dict], switches: Switches = NO_SWITCHES) -> list[dict]:
    """Each question's first gold answer, or "" where it has none, as its predictions line."""
    return [
        {"guid": r["guid"], "answer": "" if r["is_impossible"] else r["answers"][0]["text"]}
        for r in records
    ]


def check_line(record: dict, row: dict) -> LineProblem | None:
    """A line's answer: a string ("" for no answer)."""
    answer = row.get("answer")
    return None if isinstance(answer, str) else LineProblem("non-string answer", repr(answer)[:40])
