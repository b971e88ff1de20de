"""The results, generated from the run records before the book is built: the results page
(`results_page`), its figures (`result_figures`), its downloads (`downloads`, `model_index`)
and the status page (`status_page`)."""

import json
from pathlib import Path

from kluebook import result_figures
from kluebook.aggregation import published_rows, published_scores, reproduced_rows
from kluebook.downloads import downloads
from kluebook.json_files import write_text_if_changed
from kluebook.model_index import write_model_index
from kluebook.pages import write_pages
from kluebook.paths import GENERATED, RESULTS
from kluebook.records import load_records
from kluebook.results_page import figure_path, render
from kluebook.status_page import render_status
from kluebook.tasks import all_tasks


def write_report(
    out_dir: Path = GENERATED, results: Path = RESULTS, records: list[dict] | None = None
) -> list[Path]:
    """Write the results page body, its figures and downloads, and the status page (from
    `records` when given, else from the records under `results`)."""
    records = load_records(results) if records is None else records
    rows = reproduced_rows(records)
    published = published_rows(published_scores())
    frame, data = downloads(records)
    texts = {
        out_dir / "results.md": render(records),
        out_dir / "results.csv": frame.to_csv(index=False),
        out_dir / "results.json": json.dumps(data, ensure_ascii=False, indent=1) + "\n",
        out_dir / "status.md": render_status(records),
    }
    for path, text in texts.items():
        write_text_if_changed(path, text)
    paths = list(texts)
    for task in all_tasks().values():
        path = figure_path(task, out_dir)
        result_figures.task_figure(task, rows, published, path)
        paths.append(path)
    paths += write_model_index(rows, out_dir / "model-index")
    return paths


def write_generated(out_dir: Path = GENERATED, results: Path = RESULTS) -> list[Path]:
    """Every generated page of the book, from one reading of the records: the results and status
    pages (`write_report`), then the registry pages, task pages and contents (`write_pages`)."""
    records = load_records(results)
    return [*write_report(out_dir, results, records), *write_pages(out_dir, records)]
