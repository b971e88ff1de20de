"""The executed notebook a run keeps beside its record, the source of its page: cleaned for a
reader (stderr, progress bars and widget outputs dropped, consecutive print-outs merged, the
parameter cells hidden) and without any path of the machine that ran it."""

import json
import re
from pathlib import Path

import nbformat

from kluebook.common.paths import ROOT, personal_folders, scrub
from kluebook.training import checkpoints

# Outputs that are progress or widget state, not results.
WIDGET_TYPES = (
    "application/vnd.jupyter.widget-view+json",
    "application/vnd.jupyter.widget-state+json",
)
PROGRESS_LINE = re.compile(r"\d+%\|.*\||\d+(\.\d+)?(it|s)/(s|it)\]")
# Text outputs and sources that may hold a path (images are never rewritten).
TEXT_TYPES = ("text/plain", "text/html", "text/markdown", "text/latex")


def display_path(value: str) -> str:
    """A path as a reader may see it: relative inside the book root, else without its folders.
    A home or temporary folder inside the book root is this machine's, not the book's: a path
    in it is ~/... or <tmp>/..., as `scrub` shows it."""
    if not value:
        return value
    path = Path(value)
    if not path.is_absolute():
        return value
    personal = [Path(folder) for folder in personal_folders()]
    if path.is_relative_to(ROOT) and not any(
        path.is_relative_to(folder) and folder.is_relative_to(ROOT) and folder != ROOT
        for folder in personal
    ):
        return str(path.relative_to(ROOT))
    shown = scrub(value)
    return f"…/{path.name}" if Path(shown).is_absolute() else shown


def clean_outputs(cell) -> None:
    """Drop stderr, progress bars and widget state; merge consecutive print-outs; unpath text."""
    kept = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            if output.name == "stderr":
                continue
            lines = [
                line.rsplit("\r", 1)[-1]
                for line in output.text.splitlines(keepends=True)
                if not PROGRESS_LINE.search(line)
            ]
            text = scrub("".join(lines))
            if not text.strip():
                continue
            if kept and kept[-1].output_type == "stream" and kept[-1].name == output.name:
                kept[-1].text += text
                continue
            output.text = text
        elif output.output_type in ("display_data", "execute_result"):
            for mime in WIDGET_TYPES:
                output.data.pop(mime, None)
            if not output.data:
                continue
            for mime in TEXT_TYPES:
                if mime in output.data:
                    value = output.data[mime]
                    output.data[mime] = scrub("".join(value) if isinstance(value, list) else value)
        kept.append(output)
    cell.outputs = kept


def clean(notebook, spec):
    """An executed notebook (in place) without noise or paths of the machine, its parameter
    cells hidden; cleaning twice changes nothing."""
    if "papermill" in notebook.metadata:  # where it ran from, without this machine's folders
        meta = notebook.metadata.papermill
        source = spec.source_notebook
        meta.input_path = (
            str(source.relative_to(ROOT)) if source.is_relative_to(ROOT) else source.name
        )
        meta.output_path = str(spec.notebook_path.relative_to(ROOT))
        for key in ("parameters", "default_parameters"):
            if key in meta:
                meta[key] = {
                    k: display_path(v) if isinstance(v, str) else v for k, v in meta[key].items()
                }
    for cell in notebook.cells:
        tags = cell.metadata.setdefault("tags", [])
        if "parameters" in tags or "injected-parameters" in tags:
            hidden = ("hide-input", "hide-cell", "remove-cell")
            tags[:] = [t for t in tags if t not in hidden] + ["remove-cell"]
        if cell.cell_type == "code":
            cell.source = scrub(cell.source)
            clean_outputs(cell)
    return notebook


def run_paths(model: str, data_dir: str) -> list[tuple[str, str]]:
    """A run's own folders outside the known ones (a local checkpoint `model`, a `data_dir`
    given by absolute path), and how a page shows them: the checkpoint by its id."""
    pairs = []
    folder = checkpoints.local_model(model)
    if folder is not None:
        pairs += [(str(folder), checkpoints.model_id(model)), (model, checkpoints.model_id(model))]
    if data_dir and Path(data_dir).is_absolute():
        pairs += [(str(Path(data_dir).resolve()), display_path(data_dir))]
        pairs += [(data_dir, display_path(data_dir))]
    return sorted({p for p in pairs if Path(p[0]).is_absolute()}, key=lambda p: -len(p[0]))


def clean_notebook(executed: bytes, spec) -> str:
    """The executed notebook a run keeps beside its record (see `clean`), as text, with no
    folder of the run's own either (`run_paths`, replaced before the machine's folders, which
    may hold them); it comes without the run's secrets (`kluebook.running.worker` redacts them where
    the run executes)."""
    text = executed.decode("utf-8")
    for path, shown in run_paths(spec.model, spec.data_dir):
        text = text.replace(
            json.dumps(path, ensure_ascii=False)[1:-1], json.dumps(shown, ensure_ascii=False)[1:-1]
        )
    return nbformat.writes(clean(nbformat.reads(text, as_version=4), spec))
