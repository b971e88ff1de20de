"""The status page: every run by task, with its outcome, time, machine and commit, and the errors
of the failed runs."""

from collections import defaultdict
from pathlib import Path

from kluebook.aggregation import record_order
from kluebook.links import run_page
from kluebook.myst import list_table
from kluebook.paths import ROOT
from kluebook.tasks import all_tasks


def render_status(records: list[dict], root: Path = ROOT) -> str:
    """Every run, by task: a link to its page (or its error), outcome, time, machine, commit."""
    if not records:
        return "No run recorded yet.\n"
    tasks = all_tasks()
    parts = []
    by_task: dict[str, list[dict]] = defaultdict(list)
    for record in sorted(records, key=record_order):
        by_task[record["task"]].append(record)
    for name, mine in by_task.items():
        title = tasks[name].title if name in tasks else name
        rows, errors = [], []
        for r in mine:
            config = "" if r.get("config", "default") == "default" else f" · {r['config']}"
            text = f"{r['model']} · {r['profile']}{config} · seed {r['seed']}"
            page = run_page(r, root)
            run = f"{{doc}}`{role_text(text)} </{page}>`" if page else text
            status = r["status"]
            if status == "failed":
                errors.append(f"- {text}: {r.get('error', 'no error recorded')}")
                status = "**failed** (below)"
            wall = f"{r['wall_time_s']:,.0f} s" if r.get("wall_time_s") is not None else "—"
            finished = (r.get("finished_at") or "—").replace("T", " ")[:16]
            commit = f"`{(r.get('git_commit') or 'unknown')[:12]}`"
            rows.append([run, status, wall, finished, str(r.get("device", "—")), commit])
        header = ["run", "status", "wall time", "finished", "device", "commit"]
        text = f"## {title}\n\n" + list_table(header, rows, [34, 13, 9, 14, 16, 14])
        if errors:
            text += "\nErrors of the failed runs:\n\n" + "\n".join(errors)
        parts.append(text)
    newest = max(
        (r for r in records if "libraries" in r), key=lambda r: r["finished_at"], default=None
    )
    if newest:
        versions = ", ".join(f"{k} {v}" for k, v in newest["libraries"].items())
        parts.append(f"Library versions of the most recent run: {versions}.")
    return "\n\n".join(parts) + "\n"


def role_text(text: str) -> str:
    """Text safe inside a MyST role's `text <target>` form."""
    return text.replace("<", "‹").replace(">", "›").replace("`", "'")
