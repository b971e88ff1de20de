"""Make the baseline submissions from the real KLUE v1.1 files: honest numbers with no GPU.

    KLUEBOOK_DATA_DIR=path/to/klue_benchmark python benchmarks/make_baselines.py [--out submissions]

Writes three submissions (predictions only: guid and label, never text of the data), each a
folder with submission.yaml, that `kluebook submissions check` accepts and `kluebook score`
scores. No baseline sees a dev label: what is learnt comes from a train split, and a task
without one in the data folder (NER, DP) gets a fixed rule, written out below.

- majority-baseline: the train split's most frequent class (YNAT, NLI) or mean score (STS);
  NER: every character `O`; DP: every eojeol attached to the sentence's last eojeol (the root,
  `VP`), labelled `NP`, the first label of the official baseline's frequency-ordered list.
- tfidf-baseline: TF-IDF over character n-grams and a logistic regression (YNAT on the title;
  NLI on the premise, the hypothesis and their shared n-grams), and for STS a linear regression
  on the cosine similarities of the two sentences' TF-IDF vectors (characters and words),
  clipped to 0-5. All fitted on the train split.
- next-eojeol-baseline: DP, Korean being head-final: each eojeol attached to the next one, the
  last to the root; the relation read off the eojeol's last part-of-speech tag (an input of the
  task, like the words), by the rule in `DP_RELATION_RULES`.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
from pathlib import Path

import numpy as np
import sklearn
import yaml
from scipy.sparse import hstack
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.preprocessing import normalize

from kluebook import __version__
from kluebook.submissions.check import gold_file
from kluebook.tasks import get_task, task_module

DATE = "2026-12-07"  # when these recipes' predictions were first made; a rerun gives the same
TOOL = "kluebook benchmarks/make_baselines.py"
LICENSE = "CC-BY-SA-4.0"  # predictions derived from KLUE data, shared alike
# DP: the relation of an eojeol from its last part-of-speech tag (the Sejong tags of the file's
# POS column), the first rule that matches; the last eojeol of a sentence is the root.
DP_RELATION_RULES = (
    (("JKS",), "NP_SBJ"),  # subject case marker
    (("JKO",), "NP_OBJ"),  # object case marker
    (("JKG",), "NP_MOD"),  # genitive
    (("JKB", "JX"), "NP_AJT"),  # adverbial case marker, auxiliary particle
    (("JC",), "NP_CNJ"),  # conjunctive particle
    (("ETM",), "VP_MOD"),  # adnominal ending
    (("EC", "EF", "EP", "ETN"), "VP"),  # other verbal endings
    (("MAG", "MAJ"), "AP"),  # adverbs
    (("MM",), "DP"),  # determiner
)
DP_DEFAULT_RELATION = "NP"
COMPRESSED = ("ner",)  # one tag per character: gzip makes the file 30 times smaller
DP_ROOT_RELATION = "VP"


def records(task_name: str, split: str, data_dir: Path) -> list[dict]:
    task = get_task(task_name)
    return task_module(task).read_official(gold_file(task, data_dir, split).path)


def write_submission(folder: Path, metadata: dict, predictions: dict[str, list[dict]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "submission.yaml", "w", encoding="utf-8") as handle:
        yaml.safe_dump(metadata, handle, allow_unicode=True, sort_keys=False)
    for task, rows in predictions.items():
        lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()
        if task in COMPRESSED:  # the same bytes on every run: no time or name in the header
            (folder / f"{task}.jsonl.gz").write_bytes(gzip.compress(lines, mtime=0))
        else:
            (folder / f"{task}.jsonl").write_bytes(lines)


def metadata(model: str, parameters: int, training: str) -> dict:
    return {
        "model": model,
        "link": "https://github.com/kluebook/kluebook/blob/main/benchmarks/make_baselines.py",
        "parameters": parameters,
        "method": "other",
        "training_data": training,
        "dev_data_used": False,
        "tool": TOOL,
        "tool_version": f"kluebook {__version__}, scikit-learn {sklearn.__version__}",
        "predictions_license": LICENSE,
        "date": datetime.date.fromisoformat(DATE),
    }


def most_common(values: list) -> object:
    names, counts = np.unique(np.array(values, dtype=object).astype(str), return_counts=True)
    return str(names[int(np.argmax(counts))])


def majority(data_dir: Path) -> tuple[dict, dict]:
    """The train split's majority class or mean; fixed constants where there is no train split."""
    ynat = most_common([r["label"] for r in records("ynat", "train", data_dir)])
    nli = most_common([r["gold_label"] for r in records("nli", "train", data_dir)])
    sts = round(
        float(np.mean([r["labels"]["label"] for r in records("sts", "train", data_dir)])), 4
    )
    predictions = {
        "ynat": [{"guid": r["guid"], "label": ynat} for r in records("ynat", "dev", data_dir)],
        "nli": [{"guid": r["guid"], "label": nli} for r in records("nli", "dev", data_dir)],
        "sts": [{"guid": r["guid"], "score": sts} for r in records("sts", "dev", data_dir)],
        "ner": [
            {"guid": r["guid"], "tags": ["O"] * len(r["chars"])}
            for r in records("ner", "dev", data_dir)
        ],
        "dp": [
            {
                "guid": r["guid"],
                "heads": [len(r["heads"])] * (len(r["heads"]) - 1) + [0],
                "deprels": [DP_DEFAULT_RELATION] * (len(r["heads"]) - 1) + [DP_ROOT_RELATION],
            }
            for r in records("dp", "dev", data_dir)
        ],
    }
    training = (
        "KLUE v1.1 train splits of YNAT, NLI and STS (the majority class, the mean score); "
        "NER and DP: fixed rules, no data"
    )
    return metadata("Majority class / constant", 3, training), predictions


def _char_tfidf(**options) -> TfidfVectorizer:
    return TfidfVectorizer(
        analyzer="char_wb", ngram_range=(1, 3), min_df=2, sublinear_tf=True, **options
    )


def _classifier() -> LogisticRegression:
    return LogisticRegression(C=4.0, max_iter=2000)


def tfidf(data_dir: Path) -> tuple[dict, dict]:
    """TF-IDF and linear models, fitted on the train splits."""
    parameters = 0
    train, dev = records("ynat", "train", data_dir), records("ynat", "dev", data_dir)
    vectorizer = _char_tfidf()
    model = _classifier().fit(
        vectorizer.fit_transform([r["title"] for r in train]), [r["label"] for r in train]
    )
    parameters += model.coef_.size + model.intercept_.size
    labels = model.predict(vectorizer.transform([r["title"] for r in dev]))
    ynat = [{"guid": r["guid"], "label": str(label)} for r, label in zip(dev, labels, strict=True)]

    train, dev = records("nli", "train", data_dir), records("nli", "dev", data_dir)
    vectorizer = _char_tfidf().fit([r["premise"] for r in train] + [r["hypothesis"] for r in train])

    def pair_features(rows: list[dict]):
        premise = vectorizer.transform([r["premise"] for r in rows])
        hypothesis = vectorizer.transform([r["hypothesis"] for r in rows])
        return hstack([premise, hypothesis, premise.multiply(hypothesis)]).tocsr()

    model = _classifier().fit(pair_features(train), [r["gold_label"] for r in train])
    parameters += model.coef_.size + model.intercept_.size
    labels = model.predict(pair_features(dev))
    nli = [{"guid": r["guid"], "label": str(label)} for r, label in zip(dev, labels, strict=True)]

    train, dev = records("sts", "train", data_dir), records("sts", "dev", data_dir)
    vectorizers = [
        _char_tfidf().fit([r[s] for r in train for s in ("sentence1", "sentence2")]),
        TfidfVectorizer(analyzer="word", token_pattern=r"\S+", sublinear_tf=True).fit(
            [r[s] for r in train for s in ("sentence1", "sentence2")]
        ),
    ]

    def similarities(rows: list[dict]) -> np.ndarray:
        columns = []
        for vectorizer in vectorizers:
            first = normalize(vectorizer.transform([r["sentence1"] for r in rows]))
            second = normalize(vectorizer.transform([r["sentence2"] for r in rows]))
            columns.append(np.asarray(first.multiply(second).sum(axis=1)).ravel())
        return np.column_stack(columns)

    model = LinearRegression().fit(similarities(train), [r["labels"]["label"] for r in train])
    parameters += model.coef_.size + 1
    scores = np.clip(model.predict(similarities(dev)), 0.0, 5.0)
    sts = [
        {"guid": r["guid"], "score": round(float(s), 4)} for r, s in zip(dev, scores, strict=True)
    ]
    training = (
        "KLUE v1.1 train splits of YNAT (titles), NLI and STS (sentence pairs; the reduced copy's "
        "rounded label as target)"
    )
    name = "TF-IDF character n-grams + logistic / linear regression"
    return metadata(name, int(parameters), training), {"ynat": ynat, "nli": nli, "sts": sts}


def relation(pos: str) -> str:
    """An eojeol's relation by DP_RELATION_RULES, from its last morpheme's tag."""
    last = pos.split("+")[-1]
    return next((rel for tags, rel in DP_RELATION_RULES if last in tags), DP_DEFAULT_RELATION)


def next_eojeol(data_dir: Path) -> tuple[dict, dict]:
    """Each eojeol attached to the next one; relations by the POS rule."""
    dp = []
    for r in records("dp", "dev", data_dir):
        size = len(r["heads"])
        deprels = [relation(pos) for pos in r["pos"][:-1]] + [DP_ROOT_RELATION]
        dp.append({"guid": r["guid"], "heads": [*range(2, size + 1), 0], "deprels": deprels})
    training = "none: a fixed rule on the eojeols' order and part-of-speech tags"
    return metadata("Attach to the next eojeol (head-final rule)", 0, training), {"dp": dp}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=os.environ.get("KLUEBOOK_DATA_DIR"))
    parser.add_argument("--out", type=Path, default=Path("submissions"))
    arguments = parser.parse_args()
    if arguments.data_dir is None:
        parser.error("give --data-dir or set KLUEBOOK_DATA_DIR (see `kluebook data fetch`)")
    for slug, make in (
        ("majority-baseline", majority),
        ("tfidf-baseline", tfidf),
        ("next-eojeol-baseline", next_eojeol),
    ):
        meta, predictions = make(arguments.data_dir)
        write_submission(arguments.out / slug, meta, predictions)
        print(f"wrote {arguments.out / slug}: {', '.join(predictions)}")


if __name__ == "__main__":
    main()
