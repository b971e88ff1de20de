"""A small causal LM trained until it answers the first smoke dev items of some generate-mode
tasks right: a model whose served answers can be checked against its local ones and its
scores against the top of the scale (the random stand-in's answers are all unparsable).

Its prompts are the run's: each task's prompt items of the first `dev_limit` dev records, no
demonstrations, the chat template applied. Its tokenizer is a byte-level BPE learned on them
(decoding gives back the text byte for byte: NER's marks, WoS's `=` and `;`, DP's tabs), laid
out as the Qwen family's: ChatML turns, `<|im_end|>` ends a turn and so an answer (`transformers
serve` ends a Qwen3's served answer at the family's own end markers only: an end token of
another name, such as the stand-in's `[SEP]`, is left at the end of every answer). The model is
a Qwen3 a little larger than the stand-in, trained with the loss on the answers' tokens only,
full batch, on CPU, from a fixed seed, until every answer token is the model's first choice.
"""

from pathlib import Path

from kluebook.data.loading import load_split
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.prompting.render import chat_prompt, render_prompt
from kluebook.prompting.tiny_causal_lm import CHAT_TEMPLATE
from kluebook.tasks import get_task

END_OF_TURN, PAD = "<|im_end|>", "<|endoftext|>"
SIZE = {
    "hidden_size": 128,
    "intermediate_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 32,
}


def smoke_questions(tasks: list[str], dev_limit: int) -> list[tuple[str, str]]:
    """(rendered prompt, gold answer) of the items a run of `tasks` with `dev_limit` and no
    shots answers, from the generated data of the book the process's cache belongs to."""
    pairs = []
    for name in tasks:
        template = task_template(name)
        prompting = task_prompting(name)
        records = load_split(get_task(name), "dev", "generated", None)[:dev_limit]
        for item in prompting.prompt_items(records):
            pairs.append((render_prompt(template, [], item), item.answer))
    return pairs


def byte_level_tokenizer(texts: list[str], vocab_size: int = 1500):
    """A byte-level BPE tokenizer learned on `texts`, with ChatML's tokens and template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[PAD, "<|im_start|>", END_OF_TURN],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(texts, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, eos_token=END_OF_TURN, pad_token=PAD, padding_side="left"
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def train_answering_lm(
    pairs: list[tuple[str, str]], folder: Path, seed: int = 0, max_steps: int = 600
) -> dict:
    """Train a small Qwen3 on `pairs` until greedy decoding gives every answer, then save it
    (model and tokenizer) in `folder`; the steps it took and the final loss."""
    import torch
    from transformers import GenerationConfig, Qwen3Config, Qwen3ForCausalLM

    tokenizer = byte_level_tokenizer([t for pair in pairs for t in pair])
    end = tokenizer.convert_tokens_to_ids(END_OF_TURN)
    rows, answer_lengths = [], []
    for prompt, answer in pairs:
        context = tokenizer(chat_prompt(prompt, tokenizer), add_special_tokens=False).input_ids
        reply = [*tokenizer(answer, add_special_tokens=False).input_ids, end]
        rows.append(context + reply)
        answer_lengths.append(len(reply))
    width = max(map(len, rows))
    input_ids = torch.tensor([row + [tokenizer.pad_token_id] * (width - len(row)) for row in rows])
    attention_mask = torch.tensor([[1] * len(row) + [0] * (width - len(row)) for row in rows])
    labels = torch.full_like(input_ids, -100)
    for index, (row, length) in enumerate(zip(rows, answer_lengths, strict=True)):
        labels[index, len(row) - length : len(row)] = input_ids[index, len(row) - length : len(row)]
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        max_position_embeddings=2048,
        tie_word_embeddings=False,
        eos_token_id=end,
        pad_token_id=tokenizer.pad_token_id,
        **SIZE,
    )
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = Qwen3ForCausalLM(config)
        optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
        model.train()
        steps = 0
        while True:
            output = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels)
            # Logits at position j predict token j + 1: is every answer token the first choice?
            chosen = output.logits[:, :-1].argmax(-1)
            scored = labels[:, 1:] != -100
            if bool((chosen[scored] == labels[:, 1:][scored]).all()) and output.loss < 0.05:
                break
            if steps == max_steps:
                raise AssertionError(f"not every answer learnt in {max_steps} steps: {output.loss}")
            optimizer.zero_grad()
            output.loss.backward()
            optimizer.step()
            steps += 1
    model.eval()
    model.generation_config = GenerationConfig(
        eos_token_id=end, pad_token_id=tokenizer.pad_token_id, do_sample=False
    )
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return {"steps": steps, "loss": output.loss.item()}
