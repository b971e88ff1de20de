"""The results, generated from the run records before the book is built: the run pages
(`run_pages`, from each record and its executed notebook) and their index (`run_index`), the
results page (`results_page`), its figures and each task's sensitivity figure
(`result_figures`), its downloads (`downloads`, `model_index`), the status page
(`status_page`), the errata page (`errata_page`) and the cost of the prompted runs
(`cost_table`); and the board of submissions (`kluebook.submissions.board`), rescored where
its inputs changed."""

import json
from pathlib import Path

from kluebook.book import result_figures
from kluebook.book.cost_table import render_cost
from kluebook.book.downloads import downloads
from kluebook.book.errata_page import render_errata
from kluebook.book.model_index import write_model_index
from kluebook.book.pages import write_pages
from kluebook.book.prompt_sensitivity import sensitivity_figure_path
from kluebook.book.results_page import build_contents, figure_path, render
from kluebook.book.run_index import write_run_index
from kluebook.book.run_pages import render_page
from kluebook.book.status_page import render_status
from kluebook.book.submission_pages import write_submission_pages
from kluebook.book.submitted import SubmittedRow, submitted_rows
from kluebook.common.json_files import write_text_if_changed
from kluebook.common.paths import GENERATED, KLUE_DATA, RESULTS, ROOT, SUBMISSIONS
from kluebook.recording.records import RecordsFound, RunRecord, read_records
from kluebook.results.aggregation import published_rows, published_scores, reproduced_rows
from kluebook.results.pooling import code_today, stale_reason
from kluebook.results.sensitivity import sweeps
from kluebook.running.run_spec import spec_of
from kluebook.submissions.board import Board, BoardEntry, load_board
from kluebook.tasks import all_tasks


def write_report(
    out_dir: Path = GENERATED,
    results: Path = RESULTS,
    loaded: RecordsFound | None = None,
    board: list[BoardEntry] = (),
    submitted: list[SubmittedRow] | None = None,
) -> list[Path]:
    """Write the results page body, its figures and downloads, the submission pages of `board`
    (its entries; `submitted`: their rows, made here when not given) and the status page (from
    `loaded` records when given, else from the records under `results`)."""
    records, unreadable = read_records(results) if loaded is None else loaded
    rows = reproduced_rows(records)
    published = published_rows(published_scores())
    submitted = submitted_rows(board) if submitted is None else submitted
    frame, data = downloads(records, ROOT, submitted)
    texts = {
        out_dir / "results.md": render(records, ROOT, submitted),
        out_dir / "results.csv": frame.to_csv(index=False),
        out_dir / "results.json": json.dumps(data, ensure_ascii=False, indent=1) + "\n",
        out_dir / "status.md": render_status(records, unreadable=unreadable),
        out_dir / "this_build.md": build_contents(records),
        out_dir / "errata.md": render_errata(rows, list(all_tasks().values())),
        out_dir / "prompting_cost.md": render_cost(records),
    }
    for path, text in texts.items():
        write_text_if_changed(path, text)
    paths = list(texts)
    for task in all_tasks().values():
        path = figure_path(task, out_dir)
        result_figures.task_figure(task, rows, published, path)
        paths.append(path)
        found = sweeps(task, rows)
        if found:  # the task's page shows it
            path = sensitivity_figure_path(task, out_dir)
            result_figures.sensitivity_figure(task, found, path)
            paths.append(path)
    paths += write_model_index(rows, out_dir / "model-index", submitted)
    paths += write_submission_pages(board, rows, records, out_dir, submitted=submitted)
    return paths


def write_run_pages(records: list[RunRecord], root: Path = ROOT) -> list[Path]:
    """The page of every succeeded run, rendered again from its record and executed notebook
    (a stale one says what changed since); a run of a task that is not here keeps its page."""
    today = code_today(records)
    tasks = all_tasks()
    pages = []
    for record in records:
        if record.outcome is not None and record.task in tasks:
            page = render_page(record, spec_of(record), root, stale_reason(record, today))
            pages += [page] if page else []
    return pages


def write_generated(
    out_dir: Path = GENERATED, results: Path = RESULTS, board: Board | None = None
) -> list[Path]:
    """Every generated page of the book, from one reading of the records and of the board
    (`board`, else loaded: the submissions rescored where their inputs changed, their records
    written among the paths returned): the run pages and their index (`run_index`), the
    results and status pages (`write_report`), then the registry pages, task pages and
    contents (`write_pages`); the submitted rows are made once, for all of them."""
    loaded = read_records(results)
    board = load_board(SUBMISSIONS, KLUE_DATA) if board is None else board
    submitted = submitted_rows(board.entries)
    run_pages = [*write_run_pages(loaded.records), write_run_index(loaded.records, out_dir)]
    return [
        *board.written,
        *run_pages,
        *write_report(out_dir, results, loaded, board.entries, submitted),
        *write_pages(out_dir, loaded.records, submitted, board.entries),
    ]
