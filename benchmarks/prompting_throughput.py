"""Prompting throughput: prompts and tokens per second of the tiny causal LM on CPU, batched and
one at a time, in both answering modes, next to an independent baseline measured in the same
run (the same prompts, one request at a time through plain `transformers`: `generate` for each
prompt, a forward pass over each prompt with each choice), and the ratio; the response cache's
hit rate on a rerun against a real
OpenAI-compatible server (`transformers serve` over the same model); and, where a GPU is at
hand, tokens per second on it (the tiny model, or `--model`).

    python benchmarks/prompting_throughput.py [--task ynat] [--items 48] [--shots 5]
                                              [--batch-size 16] [--threads 1] [--no-server]
                                              [--model HUB_ID_OR_FOLDER]

The prompts are the task's own (its standard template and prompting.py) over its smoke data, with
`--shots` demonstrations drawn from its train split. kluebook's tokens are its backend's `usage`
counts; the baseline's, its own count of the tokens it read and wrote or scored.
"""

import argparse
import tempfile
import time
from pathlib import Path

from kluebook.prompting.answering import RankRequest, answer_items, continuation
from kluebook.prompting.demonstrations import draw_demonstrations
from kluebook.prompting.local_lm import LocalCausalLM, open_local_lm
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.prompting.render import render_prompt
from kluebook.prompting.tiny_causal_lm import TINY_CAUSAL_LM
from kluebook.tasks import get_task, task_module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="ynat", help="a task with a prompt template")
    parser.add_argument("--items", type=int, default=48, help="dev items answered per setting")
    parser.add_argument("--shots", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1, help="CPU threads of torch")
    parser.add_argument("--no-server", action="store_true", help="skip the cache measurement")
    parser.add_argument("--model", default=TINY_CAUSAL_LM, help="the model of the GPU figure")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    template = task_template(args.task)
    prompting = task_prompting(args.task)
    task = get_task(args.task)
    data = task_module(task).generate(seed=0, **task.smoke_data)
    train, dev = prompting.prompt_items(data["train"]), prompting.prompt_items(data["dev"])
    dev = dev[: args.items]
    shots = draw_demonstrations(train, args.shots, seed=0)
    texts = [render_prompt(template, shots, item) for item in dev]
    lm = open_local_lm(TINY_CAUSAL_LM, device="cpu", batch_size=args.batch_size, tiny_texts=texts)
    folder = Path(lm.model.name_or_path)
    one_at_a_time = LocalCausalLM(folder, TINY_CAUSAL_LM, device="cpu", batch_size=1)
    tokens = sum(
        len(lm.tokenizer(lm.model_input(t), add_special_tokens=False).input_ids) for t in texts
    )
    print(
        f"task {args.task}, {len(dev)} dev prompts of {args.shots} shots "
        f"({tokens / len(dev):.0f} tokens each on average), tiny causal LM on CPU, "
        f"{args.threads} thread(s)"
    )
    modes = ["generate", "rank"] if all(item.choices for item in dev) else ["generate"]
    baseline = PlainTransformers(folder, not lm.chat)
    prompts = [lm.model_input(text) for text in texts]
    for mode in modes:
        rates, found = {}, {}
        for label, model in ((f"batch {args.batch_size}", lm), ("one at a time", one_at_a_time)):
            answers = answer_items(model, template, prompting, dev, shots, mode)
            rates[label] = len(dev) / answers.wall_time_s
            used = answers.usage.prompt_tokens + answers.usage.completion_tokens
            found[label] = answers.raw_answers
            print(
                f"  {mode:8} {label:14} {rates[label]:8.2f} prompts/s "
                f"{used / answers.wall_time_s:9,.0f} tokens/s ({answers.usage.requests} "
                f"requests, {answers.usage.prompt_tokens:,} prompt + "
                f"{answers.usage.completion_tokens:,} completion tokens)"
            )
        speedup = rates[f"batch {args.batch_size}"] / rates["one at a time"]
        print(f"  {mode:8} batching is {speedup:.1f}x as fast")
        start = time.perf_counter()
        if mode == "generate":
            plain, used = baseline.generate(prompts, template.max_new_tokens)
        else:
            choices = [[template.written(c) for c in item.choices] for item in dev]
            plain, used = baseline.rank(prompts, choices)
        seconds = time.perf_counter() - start
        rate = f"{len(dev) / seconds:8.2f} prompts/s {used / seconds:9,.0f} tokens/s"
        print(f"  {mode:8} plain transformers, one at a time {rate}")
        same = sum(a == b for a, b in zip(plain, found[f"batch {args.batch_size}"], strict=True))
        ratio = rates[f"batch {args.batch_size}"] / (len(dev) / seconds)
        print(
            f"  {mode:8} kluebook batched is {ratio:.1f}x as fast as plain transformers "
            f"({same} of {len(dev)} answers the same)"
        )

    if not args.no_server:
        measure_cache(folder, template, prompting, dev, shots)
    if torch.cuda.is_available():
        measure_gpu(args, texts, template.max_new_tokens)
    else:
        print("GPU: none here (the GPU figure needs one)")


class PlainTransformers:
    """The baseline: the same model through `transformers` alone, one request at a time."""

    def __init__(self, folder: Path, special_tokens: bool):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModelForCausalLM.from_pretrained(folder, dtype="float32").eval()
        self.special_tokens = special_tokens

    def _ids(self, text: str):
        return self.tokenizer(text, return_tensors="pt", add_special_tokens=self.special_tokens)

    def generate(self, prompts: list[str], max_new_tokens: int) -> tuple[list[str], int]:
        """Each prompt's greedy continuation, and the tokens read and written."""
        import torch

        answers, tokens = [], 0
        for prompt in prompts:
            ids = self._ids(prompt)
            with torch.inference_mode():
                out = self.model.generate(
                    **ids,
                    max_new_tokens=max_new_tokens,
                    do_sample=False,
                    pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
                )
            new = out[0, ids.input_ids.shape[1] :]
            answers.append(self.tokenizer.decode(new, skip_special_tokens=True))
            tokens += ids.input_ids.shape[1] + new.shape[0]
        return answers, tokens

    def rank(self, prompts: list[str], choices: list[list[str]]) -> tuple[list[str], int]:
        """Each prompt's most likely choice (one forward pass over the prompt with each choice,
        the choice's tokens after the prompt's summed), and the tokens read."""
        import torch

        best, tokens = [], 0
        for prompt, own in zip(prompts, choices, strict=True):
            start = self._ids(prompt).input_ids.shape[1]
            scores = []
            for choice in own:
                ids = self._ids(prompt + continuation(prompt, choice)).input_ids
                with torch.inference_mode():
                    logits = self.model(input_ids=ids).logits[0, :-1].float()
                picked = torch.log_softmax(logits, -1).gather(-1, ids[0, 1:, None])[:, 0]
                scores.append(picked[start - 1 :].sum().item())
                tokens += ids.shape[1]
            best.append(own[max(range(len(own)), key=scores.__getitem__)])
        return best, tokens


def measure_cache(folder, template, prompting, dev, shots) -> None:
    """Two sweeps against `transformers serve`: the first asks every prompt, the rerun none."""
    from kluebook.prompting.local_server import TransformersServer
    from kluebook.prompting.server_lm import ServerLM

    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        with TransformersServer(folder, scratch / "server.log") as server:
            for sweep in ("first run", "rerun"):
                lm = ServerLM(server.base_url, str(folder), scratch / "responses.sqlite")
                start = time.perf_counter()
                answer_items(lm, template, prompting, dev, shots, "generate")
                seconds = time.perf_counter() - start
                hits = lm.usage.cache_hits
                print(
                    f"response cache, {sweep:9}: {lm.asked} asked, {hits} from the cache "
                    f"(hit rate {hits / lm.usage.requests:.0%}), {seconds:.2f} s"
                )


def measure_gpu(args, texts, max_new_tokens) -> None:
    """Prompt and generated tokens per second of `--model` in both modes, batched."""
    import torch

    lm = open_local_lm(args.model, device="cuda", batch_size=args.batch_size, tiny_texts=texts)
    prompts = [lm.model_input(text) for text in texts]
    prompt_tokens = sum(len(lm.tokenizer(p, add_special_tokens=False).input_ids) for p in prompts)
    lm.generate(prompts[: args.batch_size], max_new_tokens)  # warm-up
    torch.cuda.synchronize()
    start = time.perf_counter()
    answers = lm.generate(prompts, max_new_tokens)
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    new = sum(len(lm.tokenizer(a, add_special_tokens=False).input_ids) for a in answers)
    print(
        f"GPU {torch.cuda.get_device_name(0)}, {args.model} in {lm.provenance()['dtype']}: "
        f"generate {(prompt_tokens + new) / seconds:,.0f} tokens/s "
        f"({prompt_tokens} prompt + {new} new tokens, {seconds:.2f} s)"
    )
    requests = [RankRequest(p, [" 정치"]) for p in prompts]
    torch.cuda.synchronize()
    start = time.perf_counter()
    lm.loglikelihoods(requests)
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    print(f"GPU rank scoring: {prompt_tokens / seconds:,.0f} prompt tokens/s ({seconds:.2f} s)")


if __name__ == "__main__":
    main()
