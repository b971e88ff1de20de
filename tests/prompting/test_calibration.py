"""Calibration of a ranked run on hand-worked cases (ECE, Brier score, reliability bins), and its
two corrections, each on a case where it changes the answer without changing the run's own."""

import math

import pytest
from pydantic import ValidationError

from kluebook.common.errors import KluebookError
from kluebook.prompting.answering import RankScores, Usage, answer_items
from kluebook.prompting.calibration import BINS, calibration, gold_choices
from kluebook.prompting.corrections import CONTENT_FREE, correct_ranking
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.recording.records import Prompted
from kluebook.tasks.prompt_items import PromptTemplate


def test_a_calibrated_ranking_has_no_calibration_error():
    # Three of four items at 75% confidence are right: the bin's accuracy is its confidence.
    found = calibration([[0.75, 0.25]] * 4, [0, 0, 0, 1])
    assert found["ece"] == 0.0
    # Right: 0.25² + 0.25² = 0.125; wrong: 0.75² + 0.75² = 1.125; mean (3 × 0.125 + 1.125) / 4.
    assert found["brier"] == 0.375
    assert len(found["bins"]) == BINS
    assert found["bins"][7] == {"count": 4, "confidence": 0.75, "accuracy": 0.75}
    assert all(
        b == {"count": 0, "confidence": None, "accuracy": None}
        for i, b in enumerate(found["bins"])
        if i != 7
    )


def test_an_over_confident_ranking_is_as_far_off_as_its_confidence_exceeds_its_accuracy():
    # Certain of both, right on one: confidence 1.0, accuracy 0.5.
    certain = calibration([[1.0, 0.0], [1.0, 0.0]], [0, 1])
    assert certain["ece"] == 0.5 and certain["brier"] == 1.0  # 0 and 2, the worst, averaged
    assert certain["bins"][-1] == {"count": 2, "confidence": 1.0, "accuracy": 0.5}
    # Two bins: 0.9 and right (gap 0.1), 0.6 and wrong (gap 0.6), each half the items.
    two = calibration([[0.9, 0.1, 0.0], [0.6, 0.0, 0.4]], [0, 2])
    assert two["ece"] == 0.35
    # (0.1² + 0.1² + 0²) for the first, (0.6² + 0² + 0.6²) for the second, averaged.
    assert two["brier"] == 0.37
    assert two["bins"][9]["accuracy"] == 1.0 and two["bins"][6]["accuracy"] == 0.0


def test_a_tie_is_the_first_choice_as_the_ranking_breaks_it_and_bad_gold_is_one_line():
    assert calibration([[0.5, 0.5]], [0])["ece"] == 0.5  # the first is ranked first: right
    assert calibration([[0.5, 0.5]], [1])["bins"][5]["accuracy"] == 0.0
    with pytest.raises(KluebookError, match="gold choice is not among"):
        calibration([[0.5, 0.5]], [2])
    with pytest.raises(KluebookError, match="one row of choice probabilities"):
        calibration([], [])


class BiasedModel:
    """Ranks the item's topic 정치 over 경제 by a little, but is drawn to 정치 far more on a
    content-free query and after the answer prefix alone: both corrections should undo that."""

    def __init__(self):
        self.asked = []
        self.usage = Usage()  # what a LanguageModel counts; this one counts nothing

    def model_input(self, text):
        return f"<turn>{text}"

    def loglikelihoods(self, requests):
        self.asked.extend(request.prompt for request in requests)
        scored = []
        for request in requests:
            prompt, answers = request.prompt, request.continuations
            if prompt == "<turn>주제:":  # the answer prefix alone
                table = {"정치": -0.5, "경제": -5.0}
            elif prompt.endswith(
                tuple(f"제목: {text}".strip() + "\n주제:" for text in CONTENT_FREE)
            ):
                table = {"정치": -0.1, "경제": -3.0}
            else:
                table = {"정치": -1.0, "경제": -1.2}
            scored.append(RankScores([table.get(a.strip(), -10.0) for a in answers], 0))
        return scored


def test_each_correction_flips_a_biased_answer_and_leaves_the_runs_own(prompted_task, split_items):
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    corrected_template = template.model_copy(update={"corrections": ["contextual", "pmi"]})
    _, dev = split_items
    model = BiasedModel()
    answers = answer_items(model, corrected_template, prompting, dev[:3], [])
    assert [line["label"] for line in answers.predictions] == ["정치"] * 3  # uncorrected
    corrected = correct_ranking(model, corrected_template, prompting, dev[:3], [], answers)
    assert list(corrected) == ["contextual", "pmi"]
    for found in corrected.values():
        assert [line["label"] for line in found.predictions] == ["경제"] * 3
    assert [line["label"] for line in answers.predictions] == ["정치"] * 3  # still
    # Contextual: the prior is the mean over the three content-free queries of the softmax.
    prior = corrected["contextual"].measured
    favoured = 1 / (1 + math.exp(-2.9) + 5 * math.exp(-9.9))
    assert prior["정치"] == pytest.approx(favoured) and sum(prior.values()) == pytest.approx(1.0)
    queries = [p.rsplit("제목:", 1)[1].split("\n")[0].strip() for p in model.asked[3:6]]
    assert queries == ["N/A", "", "[MASK]"]
    # PMI: each choice less its log-likelihood after the answer prefix alone (asked once).
    assert model.asked[6:] == ["<turn>주제:"]
    assert corrected["pmi"].scores[0]["경제"] == pytest.approx(-1.2 + 5.0)
    assert corrected["pmi"].scores[0]["정치"] == pytest.approx(-1.0 + 0.5)


def test_no_correction_is_asked_for_unless_the_template_names_it(prompted_task, split_items):
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    _, dev = split_items
    model = BiasedModel()
    answers = answer_items(model, template, prompting, dev[:2], [])
    assert (
        template.corrections == []
        and correct_ranking(model, template, prompting, dev[:2], [], answers) == {}
    )
    assert len(model.asked) == 2  # the items' own prompts only


def test_corrections_are_named_once_each_from_the_two_there_are():
    fields = {"mode": "rank", "instruction": "i", "answer_format": "a", "query": "{x}"}
    assert PromptTemplate(corrections=["pmi", "contextual"], **fields).corrections[0] == "pmi"
    with pytest.raises(ValidationError, match="each correction once"):
        PromptTemplate(corrections=["pmi", "pmi"], **fields)
    with pytest.raises(ValidationError):
        PromptTemplate(corrections=["temperature"], **fields)


def test_the_gold_choice_must_be_one_of_the_items_choices(split_items):
    _, dev = split_items
    assert gold_choices(dev[:2]) == [
        dev[0].choices.index(dev[0].answer),
        dev[1].choices.index(dev[1].answer),
    ]
    stray = dev[0].__class__(key="x", fields={}, answer="날씨", choices=dev[0].choices)
    with pytest.raises(KluebookError, match="'x': its gold answer is none of its choices"):
        gold_choices([stray])


def test_a_prompted_record_written_before_calibration_still_reads():
    earlier = {
        "shots": 0,
        "demonstration_seed": 1,
        "mode": "rank",
        "template_digest": "0" * 64,
        "unparsable": 0,
        "backend": {"kind": "local"},
        "first_prompt": "p",
        "first_answer": "a",
        "first_parsed": {"guid": "g", "label": "entailment"},
        "rank_normalisation": "none",
        "boundary_crossings": 0,
    }
    read = Prompted.model_validate(earlier)
    assert read.calibration is None and read.corrections is None
