"""Prompting throughput: prompts per second of the tiny causal LM on CPU, batched and one at a
time, in both answering modes; the response cache's hit rate on a rerun against a real
OpenAI-compatible server (`transformers serve` over the same model); and, where a GPU is at
hand, tokens per second on it (the tiny model, or `--model`).

    python benchmarks/prompting_throughput.py [--task ynat] [--items 48] [--shots 5]
                                              [--batch-size 16] [--threads 1] [--no-server]
                                              [--model HUB_ID_OR_FOLDER]

The prompts are the task's own (its standard template and prompting.py) over its smoke data, with
`--shots` demonstrations drawn from its train split.
"""

import argparse
import tempfile
import time
from pathlib import Path

from kluebook.prompting.answering import answer_items
from kluebook.prompting.demonstrations import draw_demonstrations
from kluebook.prompting.local_lm import LocalCausalLM, open_local_lm
from kluebook.prompting.registry import task_prompting
from kluebook.prompting.render import render_prompt
from kluebook.prompting.tiny_causal_lm import TINY_CAUSAL_LM
from kluebook.tasks import get_task


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
    template, prompting = task_prompting(args.task)
    task = get_task(args.task)
    data = task.module.generate(seed=0, **task.smoke_data)
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
    for mode in modes:
        rates = {}
        for label, model in ((f"batch {args.batch_size}", lm), ("one at a time", one_at_a_time)):
            start = time.perf_counter()
            answer_items(model, template, prompting, dev, shots, mode)
            rates[label] = len(dev) / (time.perf_counter() - start)
            print(f"  {mode:8} {label:14} {rates[label]:8.2f} prompts/s")
        speedup = rates[f"batch {args.batch_size}"] / rates["one at a time"]
        print(f"  {mode:8} batching is {speedup:.1f}x as fast")

    if not args.no_server:
        measure_cache(folder, template, prompting, dev, shots)
    if torch.cuda.is_available():
        measure_gpu(args, texts, template.max_new_tokens)
    else:
        print("GPU: none here (the GPU figure needs one)")


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
                hit_rate = lm.reused / (lm.reused + lm.asked)
                print(
                    f"response cache, {sweep:9}: {lm.asked} asked, {lm.reused} from the cache "
                    f"(hit rate {hit_rate:.0%}), {seconds:.2f} s"
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
    requests = [(p, [" 정치"]) for p in prompts]
    torch.cuda.synchronize()
    start = time.perf_counter()
    lm.loglikelihoods(requests)
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    print(f"GPU rank scoring: {prompt_tokens / seconds:,.0f} prompt tokens/s ({seconds:.2f} s)")


if __name__ == "__main__":
    main()
