"""The cost of the book's prompted runs, for the prompting page: per task and backend (a local
model or a server), the requests, cache hits, tokens (the prompt tokens a local model ran, and
those it reused because every prompt of the run shares them) and wall time of answering summed
over the runs whose records count them (`Prompted.usage`), and the tokens per second of that
time."""

import pandas as pd

from kluebook.book.myst import list_table, text
from kluebook.recording.records import RunRecord
from kluebook.tasks import all_tasks

COUNTS = [
    "requests",
    "cache_hits",
    "prompt_tokens",
    "reused_prompt_tokens",
    "completion_tokens",
    "uncounted",
]
BACKENDS = {"transformers": "local", "openai-compatible server": "served"}


def cost_frame(records: list[RunRecord]) -> pd.DataFrame:
    """One row per task and backend: the runs and their summed usage and answering time."""
    rows = []
    for record in records:
        prompted = record.outcome.prompted if record.outcome else None
        if prompted is None or prompted.usage is None:
            continue
        backend = prompted.backend.get("backend", "")
        rows.append(
            {
                "task": record.task,
                "backend": BACKENDS.get(backend, backend),
                "runs": 1,
                **prompted.usage.model_dump(),
                "wall_time_s": record.outcome.answering_wall_time_s or 0.0,
            }
        )
    if not rows:
        return pd.DataFrame()
    order = {name: index for index, name in enumerate(all_tasks())}
    frame = pd.DataFrame(rows).groupby(["task", "backend"], as_index=False).sum()
    frame["order"] = frame["task"].map(order).fillna(len(order))
    frame = frame.sort_values(["order", "task", "backend"]).drop(columns="order")
    tokens = frame["prompt_tokens"] + frame["completion_tokens"]
    frame["tokens_per_second"] = (tokens / frame["wall_time_s"]).where(frame["wall_time_s"] > 0)
    return frame.reset_index(drop=True)


def render_cost(records: list[RunRecord]) -> str:
    """The table of `cost_frame`, and what it leaves out."""
    prompted = [r for r in records if r.outcome and r.outcome.prompted]
    frame = cost_frame(prompted)
    if frame.empty:
        return "No prompted run of this book has counted its cost yet.\n"
    titles = {name: task.title for name, task in all_tasks().items()}
    rows = [
        [
            text(titles.get(row.task, row.task)),
            text(row.backend),
            f"{row.runs:,}",
            f"{row.requests:,}",
            f"{row.cache_hits:,}",
            f"{row.prompt_tokens:,}",
            f"{row.reused_prompt_tokens:,}",
            f"{row.completion_tokens:,}",
            f"{row.wall_time_s:,.2f} s",
            "—" if pd.isna(row.tokens_per_second) else f"{row.tokens_per_second:,.0f}",
        ]
        for row in frame.itertuples()
    ]
    header = ["task", "backend", "runs", "requests", "cache hits", "prompt tokens"]
    header += ["reused prompt tokens", "completion tokens", "wall time", "tokens/s"]
    counted = frame["runs"].sum()
    notes = [f"Summed over the book's prompted runs that count their cost ({counted:,})."]
    if len(prompted) > counted:
        notes.append(f"Older runs count nothing ({len(prompted) - counted:,}).")
    if frame["uncounted"].sum():
        notes.append(
            f"{frame['uncounted'].sum():,} requests whose tokens the server did not report "
            "are in no token sum."
        )
    if frame["reused_prompt_tokens"].sum():
        notes.append(
            "A local model runs the tokens every prompt of a run shares (instruction and "
            "demonstrations) once: they are in the prompt tokens once, and the reused prompt "
            "tokens count how many it did not run again."
        )
    table = list_table(header, rows, [13, 8, 6, 9, 8, 11, 11, 11, 11, 12])
    return f"{table}\n{' '.join(notes)}\n"
