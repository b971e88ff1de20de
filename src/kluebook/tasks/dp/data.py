"""DP: eojeol-level dependency parsing with gold POS tags as input (see README.md here).

A record is {guid, sentence, word_forms, lemmas, pos, heads, deprels}, one list entry per eojeol:
`lemmas` are space-separated morphemes, `pos` their `+`-joined tags, `heads` 1-based head
indices (0 = root). The official TSV has no guid field; the guid is the text after `## ` on the
sentence's header line, up to the tab.
"""

from collections.abc import Iterable
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.data.klue_tsv import SentenceBlock, read_sentence_blocks, write_sentence_blocks
from kluebook.scoring.metric_forms import F1, class_counts
from kluebook.scoring.switches import NO_SWITCHES, Switches
from kluebook.tasks.interface import HUB_COPY, LineProblem, with_position_guids

from .metric import DEPRELS, dp_scores, las_classes

__all__ = ["DEPRELS", "POS_TAGS"]

# The baseline's POS feature list; the parser uses the last tag of each eojeol.
POS_TAGS = (
    *("NNG", "NNP", "NNB", "NP", "NR", "VV", "VA", "VX", "VCP", "VCN", "MMA", "MMD", "MMN"),
    *("MAG", "MAJ", "JC", "IC", "JKS", "JKC", "JKG", "JKO", "JKB", "JKV", "JKQ", "JX", "EP"),
    *("EF", "EC", "ETN", "ETM", "XPN", "XSN", "XSV", "XSA", "XR", "SF", "SP", "SS", "SE", "SO"),
    *("SL", "SH", "SW", "SN", "NA"),
)
HEADER = (
    "## 토큰, 레이블 구분자 : \\t",
    "## 토큰 구분자 : \\n",
    "## 문장 구분자 : \\n\\n",
    "## 주석 : ##",
    "## 칼럼명 : INDEX\tWORD_FORM\tLEMMA\tPOS\tHEAD\tDEPREL",
)
COLUMNS = HEADER[-1].removeprefix("## 칼럼명 : ")


def read_official(path: str | Path) -> list[dict]:
    """Records of an official DP TSV file (one 6-column line per eojeol)."""
    records = []
    for block in read_sentence_blocks(path, COLUMNS, "DP"):
        guid, items = block.guid, block.items
        columns: dict[str, list] = {
            "word_forms": [],
            "lemmas": [],
            "pos": [],
            "heads": [],
            "deprels": [],
        }
        for position, line in enumerate(items, start=1):
            number = block.first_line + position - 1
            fields = line.split("\t")
            where = f"{path}:{number}: {guid}"
            if len(fields) != 6:
                raise KluebookError(f"{where}: expected 6 tab-separated columns, got {line!r}")
            index, word_form, lemma, pos, head, deprel = fields
            if index != str(position):
                raise KluebookError(f"{where}: expected eojeol index {position}, got {index!r}")
            if not head.isdigit() or int(head) > len(items):
                raise KluebookError(f"{where}: head {head!r} is not an eojeol index or 0")
            if deprel not in DEPRELS:
                raise KluebookError(f"{where}: unknown dependency label {deprel!r}")
            columns["word_forms"].append(word_form)
            columns["lemmas"].append(lemma)
            columns["pos"].append(pos)
            columns["heads"].append(int(head))
            columns["deprels"].append(deprel)
        records.append({"guid": guid, "sentence": block.sentence, **columns})
    return records


def write_official(records: Iterable[dict], path: str | Path) -> None:
    """Write records as an official DP TSV file."""
    write_sentence_blocks(
        path, HEADER, (SentenceBlock(r["guid"], r["sentence"], _eojeol_lines(r)) for r in records)
    )


def _eojeol_lines(record: dict) -> list[str]:
    """One numbered line per eojeol: form, lemma, POS, head and label, tab-separated."""
    columns = ("word_forms", "lemmas", "pos", "heads", "deprels")
    rows = zip(*(record[column] for column in columns), strict=True)
    return ["\t".join(map(str, (index, *row))) for index, row in enumerate(rows, start=1)]


def from_hub(rows: Iterable[dict]) -> list[dict]:
    """Hub rows (column lists `word_form`, `lemma`, `pos`, `head`, `deprel`) as records, with
    guids from their positions (the hub has none)."""
    records = (
        {
            "sentence": row["sentence"],
            "word_forms": list(row["word_form"]),
            "lemmas": list(row["lemma"]),
            "pos": list(row["pos"]),
            "heads": [int(head) for head in row["head"]],
            "deprels": list(row["deprel"]),
        }
        for row in rows
    )
    return with_position_guids("dp", records)


def _checked_prediction(record: dict, prediction: dict) -> tuple[list[int], list[str]]:
    guid, size = record["guid"], len(record["heads"])
    heads, deprels = prediction.get("heads"), prediction.get("deprels")
    for name, values in (("heads", heads), ("deprels", deprels)):
        if not isinstance(values, list) or len(values) != size:
            got = len(values) if isinstance(values, list) else repr(values)
            raise KluebookError(f"{guid}: expected {size} {name} (one per eojeol), got {got}")
    for head in heads:
        # A head past the sentence is allowed and scored as wrong: the baseline's parser can
        # pick a padding position of its batch (see parser.py, `dp_padded_head_score`).
        if type(head) is not int or head < 0:
            raise KluebookError(f"{guid}: head {head!r} is not an eojeol index or 0")
    for deprel in deprels:
        if deprel not in DEPRELS:
            raise KluebookError(f"{guid}: unknown dependency label {deprel!r}")
    return heads, deprels


def score(records: list[dict], predictions: dict, switches: Switches = NO_SWITCHES) -> dict:
    """Official UAS/LAS macro F1 (and the baseline's micro variants) over all eojeols."""
    gold_heads, pred_heads, gold_deprels, pred_deprels = [], [], [], []
    for record in records:
        heads, deprels = _checked_prediction(record, predictions[record["guid"]])
        gold_heads += record["heads"]
        gold_deprels += record["deprels"]
        pred_heads += heads
        pred_deprels += deprels
    return dp_scores(gold_heads, pred_heads, gold_deprels, pred_deprels)


def resampling_statistics(records: list[dict], predictions: dict[str, dict]) -> dict:
    """Per-sentence class counts (head indices; LAS classes), from which kluebook.scoring.bootstrap
    recomputes UAS and LAS macro F1."""
    gold_heads, pred_heads, gold_deprels, pred_deprels, sentence = [], [], [], [], []
    for index, record in enumerate(records):
        prediction = predictions[record["guid"]]
        gold_heads += record["heads"]
        gold_deprels += record["deprels"]
        pred_heads += prediction["heads"]
        pred_deprels += prediction["deprels"]
        sentence += [index] * len(record["heads"])
    gold, pred = las_classes(gold_heads, pred_heads, gold_deprels, pred_deprels)
    size = len(records)
    return {
        "uas": F1(**class_counts(gold_heads, pred_heads, sentence, size)),
        "las": F1(**class_counts(gold, pred, sentence, size)),
    }


def gold_predictions(records: list[dict], switches: Switches = NO_SWITCHES) -> list[dict]:
    """Each sentence's gold heads and labels as its predictions line (the format's example)."""
    return [
        {"guid": r["guid"], "heads": list(r["heads"]), "deprels": list(r["deprels"])}
        for r in records
    ]


def check_line(record: dict, row: dict) -> LineProblem | None:
    """A line's heads and relations: one of each per eojeol, a head within the sentence (0 for
    the root), a relation of DEPRELS."""
    heads, deprels, size = row.get("heads"), row.get("deprels"), len(record["heads"])
    if not isinstance(heads, list) or not isinstance(deprels, list):
        return LineProblem("line without heads and deprels lists")
    if len(heads) != size or len(deprels) != size:
        return LineProblem(
            "heads or deprels of the wrong length (one per eojeol)",
            f"{len(heads)}/{len(deprels)} for {size}",
        )
    bad = [head for head in heads if type(head) is not int or not 0 <= head <= size]
    if bad:
        return LineProblem(
            "head outside the sentence (0 for the root, else an eojeol's index)", repr(bad[0])
        )
    unknown = [deprel for deprel in deprels if deprel not in DEPRELS]
    if unknown:
        if all(type(deprel) is int for deprel in deprels):
            numbered = f"{HUB_COPY} may give dependency labels as ids"
            return LineProblem("hub dependency label id", repr(unknown[0]), numbered)
        return LineProblem("unknown dependency label", repr(unknown[0])[:40])
    return None
