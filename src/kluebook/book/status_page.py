"""The status page: every run by task, with its outcome (current, stale and why, failed or
interrupted), time, machine and commit; the errors of the failed runs, beside the result each
one leaves in place; and the files under results/ that are not readable records."""

from collections import defaultdict
from pathlib import Path

from kluebook.book.myst import code, doc_link, list_table, text
from kluebook.common.paths import ROOT
from kluebook.recording.records import RunRecord, Unreadable
from kluebook.results.aggregation import record_order
from kluebook.results.links import run_page
from kluebook.results.pooling import code_today, run_key, stale_reason
from kluebook.tasks import all_tasks


def unreadable_section(unreadable: list[Unreadable]) -> str:
    items = "\n".join(f"- {code(u.path)}: {text(u.reason)}" for u in unreadable)
    return (
        "## Unreadable records\n\nThese files under `results/` are not readable run records "
        "(cut short, or not records of this kluebook): they are in no table until they are "
        f"repaired, removed or their runs executed again.\n\n{items}"
    )


def render_status(
    records: list[RunRecord], root: Path = ROOT, unreadable: list[Unreadable] = ()
) -> str:
    """Every run, by task: a link to its page (or its error), outcome, time, machine, commit;
    then the unreadable files."""
    if not records:
        return "No run recorded yet.\n" + (
            f"\n{unreadable_section(unreadable)}\n" if unreadable else ""
        )
    tasks = all_tasks()
    today = code_today(records)
    kept = {run_key(r): r for r in records if r.status == "succeeded"}
    parts = [unreadable_section(unreadable)] if unreadable else []
    by_task: dict[str, list[RunRecord]] = defaultdict(list)
    for record in sorted(records, key=record_order):
        by_task[record.task].append(record)
    for name, mine in by_task.items():
        title = tasks[name].title if name in tasks else name
        rows, errors = [], []
        for r in mine:
            # A configuration's settings apart (a comma and a space), so a narrow column wraps
            # the name between them, never inside one (`dev_limit=20`).
            config = "" if r.is_default_config else " · " + ", ".join(r.config.split(","))
            name = f"{r.model} · {r.profile}{config} · seed {r.seed}"
            page = run_page(r, root)
            run = doc_link(name, page) if page else text(name)
            status = r.status
            if status in ("failed", "interrupted"):
                error = text(r.error or "no error recorded")
                good = kept.get(run_key(r))
                if good is not None:
                    error += f" (its result of {text(good.finished_at[:10])} stays in the book)"
                errors.append(f"- {text(name)}: {error}")
                status = f"**{status}** (below)"
            elif stale_reason(r, today):
                status = f"**stale**: {text(stale_reason(r, today))} changed"
            wall = f"{r.wall_time_s:,.0f} s"
            finished = text(r.finished_at.replace("T", " ")[:16])
            commit = code((r.git_commit or "unknown")[:12])
            device = text(r.outcome.device) if r.outcome else "—"
            rows.append([run, status, wall, finished, device, commit])
        header = ["run", "status", "wall time", "finished", "device", "commit"]
        section = f"## {text(title)}\n\n" + list_table(header, rows, [34, 13, 9, 14, 16, 14])
        if errors:
            section += "\nErrors of the failed runs:\n\n" + "\n".join(errors)
        parts.append(section)
    newest = max((r for r in records if r.outcome), key=lambda r: r.finished_at, default=None)
    if newest:
        versions = text(", ".join(f"{k} {v}" for k, v in newest.outcome.libraries.items()))
        parts.append(f"Library versions of the most recent run: {versions}.")
    return "\n\n".join(parts) + "\n"
