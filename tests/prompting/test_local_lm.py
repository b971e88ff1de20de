"""Backend A on the tiny causal LM: rank scores are the log-likelihood of the choice's tokens,
batching changes no answer, both modes fill the task's prediction lines, and a model that
cannot serve the prompt fails in one line."""

import json
import shutil

import pytest

from kluebook.common.errors import KluebookError
from kluebook.prompting.answering import RankRequest, answer_items, continuation
from kluebook.prompting.demonstrations import draw_demonstrations
from kluebook.prompting.local_lm import LocalCausalLM, open_local_lm
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.prompting.render import item_block, render_prompt


def tiny_lm_folder(lm):
    """The folder the tiny causal LM was loaded from."""
    return lm.model.name_or_path


@pytest.fixture(scope="module")
def prompts(tiny_lm, prompted_task, split_items):
    template = task_template(prompted_task)
    train, dev = split_items
    shots = draw_demonstrations(train, 2, seed=0)
    return [tiny_lm.model_input(render_prompt(template, shots, item)) for item in dev[:5]]


def test_a_rank_score_is_the_sum_of_the_choice_tokens_log_probabilities(tiny_lm, prompts):
    import torch

    prompt, answer = prompts[0], continuation(prompts[0], "생활문화")
    tokenizer, model = tiny_lm.tokenizer, tiny_lm.model
    context = tokenizer(prompt, add_special_tokens=False).input_ids
    whole = tokenizer(prompt + answer, add_special_tokens=False).input_ids
    assert whole[: len(context)] == context and len(whole) > len(context)
    with torch.no_grad():
        logits = model(torch.tensor([whole])).logits[0]
    by_hand = sum(
        torch.log_softmax(logits[position - 1], dim=-1)[whole[position]].item()
        for position in range(len(context), len(whole))
    )
    (found,) = tiny_lm.loglikelihoods([RankRequest(prompt, [answer])])
    (score,) = found.logprobs
    assert score == pytest.approx(by_hand, abs=1e-4)
    assert score < 0


def test_batched_scores_and_generations_equal_one_at_a_time(prompted_task, tiny_lm, prompts):
    requests = [RankRequest(p, [continuation(p, c) for c in ("정치", "IT과학")]) for p in prompts]
    batched = [found.logprobs for found in tiny_lm.loglikelihoods(requests)]
    generated = tiny_lm.generate(prompts, 6)
    alone = LocalCausalLM(tiny_lm_folder(tiny_lm), "tiny", device="cpu", batch_size=1)
    one_at_a_time = [found.logprobs for found in alone.loglikelihoods(requests)]
    assert one_at_a_time == [pytest.approx(scores, abs=1e-4) for scores in batched]
    assert alone.generate(prompts, 6) == generated
    assert len(set(generated)) > 1 and all(generated)  # real text, one per prompt


def test_rank_mode_hands_each_items_choice_scores_to_the_task(prompted_task, tiny_lm, split_items):
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    train, dev = split_items
    shots = draw_demonstrations(train, 3, seed=7)
    answers = answer_items(tiny_lm, template, prompting, dev[:4], shots)
    assert answers.unparsable == 0
    for item, line, scores in zip(
        dev[:4], answers.predictions, answers.choice_logprobs, strict=True
    ):
        assert set(scores) == set(item.choices)
        label = max(scores, key=scores.get)
        block = item_block(template, item)
        assert line == {
            "guid": item.key,
            "label": label,
            "choice_logprobs": scores,
            "item_prompt": block,
        }
    assert item_block(template, dev[0]) in answers.first_prompt  # the item's block is its own
    assert answers.boundary_crossings == 0  # WordPiece tokens stop at the space
    assert answers.raw_answers == [line["label"] for line in answers.predictions]
    # The run page's prompt: the chat turn around every demonstration and the first query.
    assert answers.first_prompt.startswith("<|im_start|>user\n다음 뉴스 제목의 주제를 고르세요.")
    assert answers.first_prompt.endswith(
        f"제목: {dev[0].fields['title']}\n주제:<|im_end|>\n<|im_start|>assistant\n"
    )
    for shot in shots:
        assert f"제목: {shot.fields['title']}\n주제: {shot.answer}" in answers.first_prompt


def test_generate_mode_counts_the_answers_the_parser_cannot_read(
    prompted_task, tiny_lm, split_items
):
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    _, dev = split_items
    answers = answer_items(tiny_lm, template, prompting, dev, [], mode="generate")
    readable = [prompting.parse_answer(i, t) for i, t in zip(dev, answers.raw_answers, strict=True)]
    assert answers.unparsable == readable.count(None) > 0  # random weights write no topic
    lines = zip(dev, answers.predictions, readable, answers.raw_answers, strict=True)
    for item, line, read, raw in lines:
        unread = {**prompting.fallback_prediction(item), "unparsable": True}
        block = item_block(template, item)
        assert line == {**(read or unread), "raw_answer": raw, "item_prompt": block}
    assert answers.raw_answers == tiny_lm.generate(
        [tiny_lm.model_input(render_prompt(template, [], i)) for i in dev], 6
    )
    assert answers.first_answer == answers.raw_answers[0]


def test_a_context_too_short_for_the_prompt_says_by_how_much(tiny_lm, prompts, tmp_path):
    folder = tmp_path / "short"
    shutil.copytree(tiny_lm_folder(tiny_lm), folder)
    config = json.loads((folder / "config.json").read_text())
    config["max_position_embeddings"] = 16
    (folder / "config.json").write_text(json.dumps(config))
    short = LocalCausalLM(folder, "short-model", device="cpu")
    tokens = len(short.tokenizer(prompts[0], add_special_tokens=False).input_ids)
    with pytest.raises(KluebookError) as error:
        short.generate(prompts[:1], 6)
    assert str(error.value) == (
        f"prompt 1 is {tokens} tokens + 6 new, {tokens + 6 - 16} more than the 16-token context "
        "of short-model: use fewer shots or a model with a longer context"
    )
    with pytest.raises(KluebookError, match=r"request 1 \(prompt and answer\) is \d+ tokens, "):
        short.loglikelihoods([RankRequest(prompts[0], [" 정치"])])


def test_a_model_without_a_tokenizer_is_one_line(tiny_lm, tmp_path):
    folder = tmp_path / "no-tokenizer"
    folder.mkdir()
    for name in ("config.json", "model.safetensors", "generation_config.json"):
        shutil.copy(f"{tiny_lm_folder(tiny_lm)}/{name}", folder / name)
    with pytest.raises(KluebookError) as error:
        LocalCausalLM(folder, "bare-model", device="cpu")
    assert "\n" not in str(error.value)
    assert str(error.value).startswith("model bare-model: no tokenizer could be loaded")


def test_the_record_learns_where_and_how_the_model_ran(tiny_lm):
    assert tiny_lm.provenance() == {
        "backend": "transformers",
        "model": "kluebook/tiny-qwen3",
        "revision": "",
        "device": "cpu",
        "dtype": "float32",
        "chat_template": True,
    }


def test_a_model_folder_that_is_not_there_is_one_line():
    with pytest.raises(KluebookError, match=r"^model \./no/such/model: no such folder$"):
        open_local_lm("./no/such/model")


def test_the_choices_of_one_prompt_share_its_pass_and_score_as_if_run_alone(
    tiny_lm, prompts, monkeypatch
):
    import torch

    answers = ("정치", "정치 경제 사회", "IT과학", "스포츠 뉴스 기사입니다")  # 1 to 5+ tokens
    requests = [RankRequest(p, [continuation(p, a) for a in answers]) for p in prompts[:3]]
    assert len({len(tiny_lm.tokenizer(p).input_ids) for p in prompts[:3]}) > 1  # padded
    passes = []
    shared_pass = tiny_lm._after_prefix
    monkeypatch.setattr(tiny_lm, "_after_prefix", lambda *a: passes.append(a) or shared_pass(*a))
    shared = [score for found in tiny_lm.loglikelihoods(requests) for score in found.logprobs]
    assert len(passes) == 1  # one pass over the three prompts for their twelve answers
    alone = []  # each whole text run by itself, no cache, no padding
    for request in requests:
        prompt = request.prompt
        context = len(tiny_lm._encode(prompt))
        for text in request.continuations:
            whole = tiny_lm._encode(prompt + text)
            with torch.no_grad():
                logprobs = torch.log_softmax(tiny_lm.model(torch.tensor([whole])).logits[0], -1)
            alone.append(sum(logprobs[j - 1, whole[j]].item() for j in range(context, len(whole))))
    assert shared == pytest.approx(alone, abs=1e-4)
    assert len(set(shared)) == 12
