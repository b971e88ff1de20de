"""Degenerate answers, with a model that always gives one answer: its spread, the trivial
predictors it cannot be told from, and two models with the very same answers."""

from conftest import valid_record

from kluebook.prompting.answering import RankScores, Usage, answer_items
from kluebook.prompting.degenerate import answer_spread, answers_digest, baselines
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.results.degenerate import degenerate_reasons, same_answers
from kluebook.scoring.predictions import score_predictions
from kluebook.tasks import get_task, task_module

NLI = get_task("nli")


class OneAnswer:
    """A model that ranks one answer first on every item, and generates it every time."""

    def __init__(self, answer: str):
        self.answer, self.usage = answer, Usage()

    def model_input(self, text):
        return text

    def generate(self, prompts, max_new_tokens):
        return [self.answer] * len(prompts)

    def loglikelihoods(self, requests):
        return [
            RankScores([0.0 if a.strip() == self.answer else -5.0 for a in r.continuations], 0)
            for r in requests
        ]


def nli_split():
    data = task_module(NLI).generate(seed=0, train_size=60, dev_size=40)
    prompting = task_prompting("nli")
    return data["dev"], prompting.prompt_items(data["train"]), prompting.prompt_items(data["dev"])


def answered(answer: str, mode: str, template_name: str = "standard"):
    gold, train, dev = nli_split()
    template = task_template("nli", template_name)
    prompting = task_prompting("nli")
    answers = answer_items(OneAnswer(answer), template, prompting, dev, [], mode=mode)
    found = baselines(
        prompting,
        template,
        train,
        dev,
        answers,
        mode,
        lambda lines: score_predictions(NLI, gold, lines),
    )
    return gold, train, answers, found


def test_the_constant_predictor_of_a_template_with_its_own_words_is_in_the_tasks_words():
    gold, _, answers, found = answered("모름", "rank", "reworded")
    assert answer_spread(answers)["top_answer"] == "모름"  # what the model was asked to say
    assert found["constant"]["answer"] == "알 수 없음"
    assert found["constant"]["metrics"] == score_predictions(NLI, gold, answers.predictions)


def test_a_model_that_always_gives_one_answer_is_its_own_constant_predictor():
    choice = nli_split()[2][0].choices[0]
    gold, train, answers, found = answered(choice, "rank")
    assert answer_spread(answers) == {
        "top_answer": choice,
        "top_answer_share": 1.0,
        "fallback_share": 0.0,
    }
    own = score_predictions(NLI, gold, answers.predictions)
    assert found["constant"] == {"answer": choice, "metrics": own}
    majority = max({i.answer for i in train}, key=[i.answer for i in train].count)
    assert found["majority"]["answer"] == majority


def test_answers_nothing_can_read_are_all_fallbacks():
    _, _, answers, found = answered("모르겠어요", "generate")
    spread = answer_spread(answers)
    assert spread["fallback_share"] == 1.0 and spread["top_answer_share"] == 1.0
    assert found["constant"]["answer"] == "모르겠어요"


def test_the_answers_digest_leaves_the_choice_scores_out():
    lines = [{"guid": "a", "label": "entailment", "choice_logprobs": {"참": -1.0}}]
    rescored = [{**lines[0], "choice_logprobs": {"참": -3.0}}]
    other = [{**lines[0], "label": "neutral"}]
    assert answers_digest(lines) == answers_digest(rescored) != answers_digest(other)


def prompted_record(model: str, answers, found, interval=(20.0, 50.0)):
    spread = answer_spread(answers)
    prompted = {
        "shots": 0, "demonstration_seed": 1, "mode": "rank", "template_digest": "t",
        "unparsable": answers.unparsable, "backend": {}, "first_prompt": "p",
        "first_answer": "a", "first_parsed": {}, **spread, "baselines": found,
        "answers_digest": answers_digest(answers.predictions),
    }  # fmt: skip
    return valid_record(
        {
            "task": "nli",
            "model": model,
            "method": "prompted",
            "metrics": found["constant"]["metrics"],
            "intervals": {"accuracy": {"low": interval[0], "high": interval[1]}},
            "prompted": prompted,
        }
    )


def test_the_run_is_marked_degenerate_with_the_reasons():
    choice = nli_split()[2][0].choices[0]
    _, _, answers, found = answered(choice, "rank")
    score = found["constant"]["metrics"]["accuracy"]
    record = prompted_record("some/model", answers, found, (score - 5, score + 5))
    reasons = degenerate_reasons(NLI, record)
    assert reasons[0] == f"100% of its answers are one answer ({choice!r})"
    assert f"cannot be told from always answering {choice!r} ({score:.2f}" in reasons[1]
    twin = prompted_record("another/model", answers, found)
    assert same_answers([record, twin]) == {
        id(record): ["the same answers as another/model"],
        id(twin): ["the same answers as some/model"],
    }


def test_a_fine_tuned_run_or_an_earlier_prompted_record_has_no_reason():
    assert (
        degenerate_reasons(NLI, valid_record({"task": "nli", "metrics": {"accuracy": 33.0}})) == []
    )


def test_the_table_marks_the_cell_of_a_degenerate_run():
    from kluebook.book.klue_table import Section, table_html
    from kluebook.results.aggregation import reproduced_rows

    choice = nli_split()[2][0].choices[0]
    _, _, answers, found = answered(choice, "rank")
    (row,) = reproduced_rows([prompted_record("some/model", answers, found)])
    assert row.cells["nli", "accuracy"].degenerate[0].startswith("seed 1: 100% of its answers")
    html = table_html([Section("Prompted", [row], mark_best=False)], [NLI], "book/results")
    assert "degenerate answers (its run pages say why)" in html
