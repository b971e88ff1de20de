"""The results table: mean ± sd over seeds, published test numbers beside, smoke labelled."""

from kluebook import report
from kluebook.records import write_record


def record(seed: int, value: float, status: str = "succeeded", model="kluebook/tiny-roberta"):
    return {
        "task": "ynat",
        "profile": "smoke",
        "model": model,
        "seed": seed,
        "data_source": "generated",
        "metrics": {"macro_f1": value},
        "status": status,
        "error": "ValueError: boom",
    }


def test_table_shows_mean_and_sd_over_seeds_and_the_published_test_numbers(tmp_path):
    for seed, value in [(1, 80.0), (2, 90.0)]:
        write_record(tmp_path / "results" / f"s{seed}.json", record(seed, value))
    write_record(tmp_path / "results" / "bad.json", {**record(3, 0.0, "failed"), "metrics": None})
    paths = report.write_report(tmp_path / "out", tmp_path / "results")
    markdown = paths[0].read_text()
    assert "| `kluebook/tiny-roberta` | default (the profile's recipe) | smoke (pipeline check" in (
        markdown
    )
    assert "not a reproduction" in markdown
    assert "85.00 ± 7.07" in markdown  # mean 85, sample sd sqrt(50)
    assert (
        "| KLUE-BERT-base (published) | — | KLUE paper recipe | test (private) | — | 85.73 |"
        in markdown
    )
    assert "## Failed runs" in markdown and "seed 3: ValueError: boom" in markdown
    csv = paths[1].read_text().splitlines()
    assert csv[0] == "task,profile,model,data_source,config,split,metric,seeds,mean,sd"
    assert csv[1].startswith(
        "ynat,smoke,kluebook/tiny-roberta,generated,default,dev (generated),macro_f1,2,85.0"
    )
    assert paths[2].read_bytes().startswith(b"\x89PNG")
    assert "| ynat | `kluebook/tiny-roberta` | smoke | 3 | failed |" in paths[3].read_text()


def test_configurations_are_separate_rows_and_seeds_are_pooled_only_within_one(tmp_path):
    tuned = {"config": "learning_rate=3e-05"}
    for seed, value, extra in [(1, 80.0, {}), (2, 90.0, {}), (1, 50.0, tuned), (2, 60.0, tuned)]:
        name = f"{extra.get('config', 'default')}-{seed}.json"
        write_record(tmp_path / "results" / name, {**record(seed, value), **extra})
    markdown = report.write_report(tmp_path / "out", tmp_path / "results")[0].read_text()
    rows = [line for line in markdown.splitlines() if "`kluebook/tiny-roberta`" in line]
    assert len(rows) == 2
    assert "default (the profile's recipe)" in rows[0] and "85.00 ± 7.07" in rows[0]
    assert "`learning_rate=3e-05`" in rows[1] and "55.00 ± 7.07" in rows[1]


def test_no_records_gives_a_page_that_says_so(tmp_path):
    markdown = report.write_report(tmp_path / "out", tmp_path / "none")[0].read_text()
    assert "No run has finished yet" in markdown
