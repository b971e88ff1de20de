"""`kluebook submissions import`: a tool's log made into a submission in one command, what was
left out printed, the check's verdict as the exit status; bad input one line, non-zero."""

from pathlib import Path

FIXTURES = Path(__file__).parents[1] / "submissions" / "fixtures" / "import"
METADATA = [
    "--link",
    "https://example.org/tiny",
    "--training-data",
    "nothing: random weights",
    "--no-dev-data-used",
    "--license",
    "CC0-1.0",
]


def test_help_names_the_importer(kluebook, book_sources):
    result = kluebook(book_sources, "submissions", "import", "--help")
    assert result.returncode == 0
    for said in ("lm-eval", "Inspect", "record", "--dev-data-used", "--answer", "--task"):
        assert said in result.stdout


def test_an_lm_eval_log_is_imported_in_one_command(kluebook, book_sources, tmp_path):
    folder = tmp_path / "tiny-lm"
    args = ["submissions", "import", str(FIXTURES / "lm_eval"), "--to", str(folder)]
    data = ["--data-dir", str(FIXTURES / "data")]
    result = kluebook(book_sources, *args, *METADATA, "--model", "tiny", *data)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(
        "ynat (from 'kluebook_ynat'): 6 of 6 items imported (6 by their guid, 0 by their text)"
    )
    assert lines[1].startswith(
        "nli (from 'kluebook_nli'): 6 of 7 items imported (0 by their guid, 6 by their text)"
    )
    assert lines[2].startswith(
        "nli: 1 item left out, not mapped (its text matches no dev item): samples_kluebook_nli_"
    )
    assert lines[-1] == "tiny-lm: passes `kluebook submissions check`"
    assert sorted(p.name for p in folder.iterdir()) == [
        "nli.jsonl",
        "submission.yaml",
        "ynat.jsonl",
    ]
    check = kluebook(book_sources, "submissions", "check", str(folder), *data)
    assert check.returncode == 0, check.stderr


def test_missing_metadata_is_one_line_and_fails(kluebook, book_sources, tmp_path):
    log = str(FIXTURES / "inspect" / "kluebook_nli.json")
    result = kluebook(book_sources, "submissions", "import", log, "--to", str(tmp_path / "x"))
    assert result.returncode != 0 and result.stdout == ""
    [line] = result.stderr.strip().splitlines()
    assert "the sources do not say, so give: link (--link), parameters (--parameters)" in line
    assert not (tmp_path / "x").exists()
    result = kluebook(
        book_sources, "submissions", "import", log, "--to", str(tmp_path / "y"), "--date", "May"
    )
    assert result.returncode != 0 and "--date 'May': expected YYYY-MM-DD" in result.stderr


def test_an_incomplete_import_is_written_and_fails_its_check(kluebook, book_sources, tmp_path):
    log = tmp_path / "log"
    log.mkdir()
    for path in (FIXTURES / "lm_eval").iterdir():
        text = path.read_text(encoding="utf-8")
        if path.name.startswith("samples_kluebook_nli_"):
            text = "".join(text.splitlines(keepends=True)[1:])  # the first item never ran
        (log / path.name).write_text(text, encoding="utf-8")
    folder = tmp_path / "part"
    args = ["submissions", "import", str(log), "--to", str(folder), *METADATA, "--model", "t"]
    result = kluebook(book_sources, *args, "--data-dir", str(FIXTURES / "data"))
    assert result.returncode == 1
    assert "nli (from 'kluebook_nli'): 5 of 6 items imported" in result.stdout
    assert "part: nli.jsonl: 1 missing guids: klue-nli-v1_dev_00000" in result.stderr
    assert result.stderr.strip().endswith("part: does not pass `kluebook submissions check`")
    assert (folder / "nli.jsonl").read_text().count("\n") == 5


def test_an_import_that_maps_nothing_writes_nothing(kluebook, scratch_book, tmp_path):
    """(STS has no dev file in the data folder: its generated smoke data, in the book's cache.)"""
    folder = tmp_path / "none"
    args = ["submissions", "import", str(FIXTURES / "inspect" / "kluebook_nli.json")]
    args += ["--to", str(folder), *METADATA, "--parameters", "0", "--task", "kluebook_nli=sts"]
    result = kluebook(scratch_book, *args, "--data-dir", str(FIXTURES / "data"))
    assert result.returncode != 0 and result.stdout == ""
    assert result.stderr.strip() == "error: no item of sts could be imported; nothing written"
    assert not folder.exists()
