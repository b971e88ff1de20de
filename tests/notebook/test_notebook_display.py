"""A task notebook's setup (`start_run`) makes printed DataFrames align Korean text: each line
of a printed frame with Hangul cells has the same width on screen (wide characters count two)."""

import unicodedata

import pandas as pd

from kluebook.notebook.steps import start_run


def screen_width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def test_printed_korean_frames_stay_aligned_after_the_notebook_setup(tmp_path):
    namespace = {
        "model": "kluebook/tiny-roberta",
        "profile": "smoke",
        "data_source": "generated",
        "data_dir": "",
        "seed": 1,
        **dict.fromkeys(["learning_rate", "batch_size", "epochs", "warmup_ratio", "max_length"]),
        "train_limit": 0,
        "dev_limit": 0,
        "output_dir": str(tmp_path),
    }
    frame = pd.DataFrame({"label": ["정치", "IT과학", "sports"], "n": [1, 22, 333]})
    with pd.option_context("display.unicode.east_asian_width", False):
        before = {screen_width(line) for line in frame.to_string().splitlines()}
        start_run("ynat", namespace)
        after = {screen_width(line) for line in frame.to_string().splitlines()}
    assert len(before) > 1  # without the option, the Korean rows come out wider
    assert len(after) == 1
