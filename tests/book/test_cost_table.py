"""The prompting page's cost table: per task and backend, the usage of the book's prompted runs
summed from their records (`prompted.usage`, the answering wall time), with the tokens per
second of that time; a record made before usage was counted still reads, and is said to count
nothing. A run card says its own."""

from conftest import valid_record

from kluebook.book.cost_table import cost_frame, render_cost
from kluebook.book.run_pages import answering_text
from kluebook.methods.prompted import template_digest
from kluebook.recording import fingerprints
from kluebook.recording.records import RunRecord
from kluebook.tasks import get_task

NLI = get_task("nli")


def prompted(seed: int, usage: dict | None, wall: float | None, backend="transformers"):
    """A prompted NLI run's record, with the `usage` and answering time it counted."""
    parameters = {"model": "kluebook/tiny-qwen3", "profile": "smoke", "seed": seed, "task": "nli"}
    inputs = {
        **fingerprints.current_code(NLI, "prompted"),
        "parameters": fingerprints.text_digest(str(parameters)),
        "data": "generated-data",
    }
    facts = {
        "shots": 0,
        "demonstration_seed": seed,
        "mode": "rank",
        "template_digest": template_digest(NLI),
        "unparsable": 0,
        "backend": {"backend": backend, "model": "kluebook/tiny-qwen3"},
        "first_prompt": "전제: …",
        "first_answer": "참",
        "first_parsed": {"guid": "nli-0", "label": "entailment"},
    }
    timing = {"answering_wall_time_s": wall} if wall is not None else {}
    if usage and wall:
        timing["answering_tokens_per_second"] = (
            usage["prompt_tokens"] + usage["completion_tokens"]
        ) / wall
    return valid_record(
        {
            "task": "nli",
            "model": "kluebook/tiny-qwen3",
            "seed": seed,
            "method": "prompted",
            "config": "prompted",
            "inputs": inputs,
            "metrics": {"accuracy": 40.0},
            "prompted": {**facts, **({"usage": usage} if usage else {})},
            **timing,
        }
    )


def usage(requests, hits, prompt, completion, uncounted=0, reused=None):
    counts = {
        "requests": requests,
        "cache_hits": hits,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "uncounted": uncounted,
    }
    return counts if reused is None else {**counts, "reused_prompt_tokens": reused}


def test_the_table_sums_two_runs_of_a_task_and_keeps_backends_apart():
    runs = [
        prompted(1, usage(20, 0, 1_800, 60), 2.0),  # recorded before reuse was counted
        prompted(2, usage(20, 5, 1_700, 55, reused=9_500), 3.0),
        prompted(3, usage(60, 60, 5_000, 40, uncounted=2), 0.5, "openai-compatible server"),
    ]
    again = RunRecord.model_validate(runs[2].as_dict()).outcome
    assert again.prompted.usage.uncounted == 2 and again.answering_wall_time_s == 0.5
    frame = cost_frame(runs)
    local = frame[frame["backend"] == "local"].iloc[0]
    assert (local["runs"], local["requests"], local["cache_hits"]) == (2, 40, 5)
    assert (local["prompt_tokens"], local["completion_tokens"]) == (3_500, 115)
    assert local["reused_prompt_tokens"] == 9_500  # counted once, not in the tokens per second
    assert local["wall_time_s"] == 5.0 and local["tokens_per_second"] == 3_615 / 5.0
    assert frame["backend"].tolist() == ["local", "served"]
    page = render_cost(runs)
    assert f"* - {NLI.title}\n  - local\n  - 2\n  - 40\n  - 5\n" in page
    assert "  - 3,500\n  - 9,500\n  - 115\n  - 5.00 s\n  - 723" in page
    assert "the reused prompt tokens count how many it did not run again" in page
    assert "prompted runs that count their cost (3)" in page
    assert "2 requests whose tokens the server did not report" in page


def test_a_record_without_usage_still_reads_and_counts_nothing():
    old = prompted(4, None, None)
    assert RunRecord.model_validate(old.as_dict()).outcome.prompted.usage is None
    assert render_cost([old]) == "No prompted run of this book has counted its cost yet.\n"
    page = render_cost([old, prompted(1, usage(20, 0, 1_800, 60), 2.0)])
    assert "that count their cost (1). Older runs count nothing (1)." in page


def test_a_run_card_says_what_answering_asked_and_how_fast():
    served = prompted(3, usage(60, 60, 5_000, 40, uncounted=2), 0.5, "openai-compatible server")
    assert answering_text(served.outcome) == (
        "answering: 60 requests (60 from the response cache), 5,000 prompt and 40 completion "
        "tokens (2 requests' tokens not reported) in 0.50 s, 10,080 tokens/s"
    )
    assert answering_text(prompted(4, None, None).outcome) == ""
    local = prompted(2, usage(20, 5, 1_700, 55, reused=9_500), 3.0)
    assert answering_text(local.outcome) == (
        "answering: 20 requests (5 from the response cache), 1,700 prompt (9,500 more reused: "
        "every prompt shares them) and 55 completion tokens in 3.00 s, 585 tokens/s"
    )
