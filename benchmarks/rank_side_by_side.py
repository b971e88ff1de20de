"""kluebook's local backend side by side with lm-evaluation-harness, on the same requests and the
same model, in one sitting: per rank task (YNAT, NLI, STS, RE; each task's first `--items` smoke
dev items, 0 and 5 shots, plain prompts, each choice written after the prompt as kluebook's rank
mode writes it), kluebook's time (`answer_items`, as the notebooks call it), lm-eval's time
(`HFLM.loglikelihood`) at its best batch size, the ratio and the largest difference between the
two log-likelihoods of a choice; in generate mode, kluebook against batched `transformers`
`generate` (left padded, no prefix reused) and whether the answers are the same; and the peak
memory of a process that answers the 5-shot RE set, for this code and, with `--against-src`,
another checkout's `src` (the commit before, say).

    python benchmarks/rank_side_by_side.py [--tasks ynat,nli,sts,re] [--items 40]
        [--shots 0,5] [--batch-size 8] [--lm-eval-batch-sizes 8,16,32] [--threads 1]
        [--against-src ../main/src] [--no-generate] [--memory-only]

The model is a randomly initialised GPT-2 (8 layers x 512) with a byte-level BPE learned from the
four tasks' smoke text, built once into the cache. lm-eval comes from this interpreter if it
can import it, else from a virtual environment of its own under the cache
(`<cache>/benchmarks/lm-eval-venv`), made on the first run with pip: lm_eval with its `hf` extra
and accelerate, torch, transformers and accelerate pinned to this interpreter's versions.
Both sides run on the CPU with `--threads` torch threads; compare figures of one sitting only.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

TASKS = ("ynat", "nli", "sts", "re")
MODEL_SIZE = {"n_layer": 8, "n_embd": 512, "n_head": 8, "n_positions": 2048}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--items", type=int, default=40, help="smoke dev items per task")
    parser.add_argument("--shots", default="0,5", help="demonstration counts, comma-separated")
    parser.add_argument("--batch-size", type=int, default=8, help="kluebook's prompts at once")
    parser.add_argument("--lm-eval-batch-sizes", default="8,16,32", help="lm-eval's, best kept")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of each side")
    parser.add_argument("--against-src", help="another checkout's src, for the memory line")
    parser.add_argument("--no-generate", action="store_true", help="skip generate mode")
    parser.add_argument("--memory-only", action="store_true", help="only the memory line")
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # lm-eval's side, in its interpreter
    parser.add_argument("--memory-worker", help=argparse.SUPPRESS)  # one answering, measured
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # both sides, quiet
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    if args.worker:
        return lm_eval_worker(Path(args.worker))
    if args.memory_worker:
        return memory_worker(args.memory_worker)

    import torch

    from kluebook.common.paths import CACHE

    torch.set_num_threads(args.threads)
    tasks, shots = args.tasks.split(","), [int(s) for s in args.shots.split(",")]
    sets = {(task, k): request_set(task, k, args.items) for task in tasks for k in shots}
    folder = build_model(CACHE / "benchmarks", [text for s in sets.values() for text in s.texts])
    if args.memory_only:
        return print_memory(folder, args, tasks)
    python = lm_eval_python(CACHE / "benchmarks" / "lm-eval-venv")
    print(
        f"{len(tasks)} rank tasks x {args.items} smoke dev items, {shots} shots; GPT-2 "
        f"{MODEL_SIZE['n_layer']} x {MODEL_SIZE['n_embd']}, random weights, byte-level BPE; "
        f"CPU, {args.threads} torch thread(s); torch {torch.__version__}, transformers "
        f"{metadata.version('transformers')}, lm_eval {lm_eval_version(python)}"
    )
    with tempfile.TemporaryDirectory() as scratch:
        job = Path(scratch) / "job.json"
        job.write_text(
            json.dumps(
                {
                    "folder": str(folder),
                    "threads": args.threads,
                    "batch_sizes": [int(b) for b in args.lm_eval_batch_sizes.split(",")],
                    "sets": {f"{t} {k}": s.pairs() for (t, k), s in sets.items()},
                }
            )
        )
        ours = {key: kluebook_rank(folder, s, args.batch_size) for key, s in sets.items()}
        subprocess.run([python, __file__, "--worker", str(job)], check=True)
        theirs = json.loads(job.with_suffix(".out.json").read_text())
    print_rank(sets, ours, theirs, shots, args.batch_size)
    if not args.no_generate:
        print_generate(folder, sets, max(shots), args.batch_size)
    print_memory(folder, args, tasks)


class RequestSet:
    """A task's rank requests at k shots: its template, items and demonstrations, the rendered
    prompts and each prompt's choices as rank mode writes them after it."""

    def __init__(self, task: str, shots: int, items: int):
        from kluebook.prompting.answering import continuation
        from kluebook.prompting.demonstrations import draw_demonstrations
        from kluebook.prompting.registry import task_prompting, task_template
        from kluebook.prompting.render import render_prompt
        from kluebook.tasks import get_task, task_module

        self.template = task_template(task)

        self.prompting = task_prompting(task)
        definition = get_task(task)
        data = task_module(definition).generate(seed=0, **definition.smoke_data)
        train = self.prompting.prompt_items(data["train"])
        self.items = self.prompting.prompt_items(data["dev"])[:items]
        self.shots = draw_demonstrations(train, shots, seed=0)
        self.prompts = [render_prompt(self.template, self.shots, item) for item in self.items]
        self.choices = [
            [continuation(prompt, self.template.written(c)) for c in item.choices]
            for prompt, item in zip(self.prompts, self.items, strict=True)
        ]
        self.texts = [*self.prompts, *(c for own in self.choices for c in own)]

    def pairs(self) -> list[list[str]]:
        return [[p, c] for p, own in zip(self.prompts, self.choices, strict=True) for c in own]


def request_set(task: str, shots: int, items: int) -> RequestSet:
    return RequestSet(task, shots, items)


def build_model(cache: Path, texts: list[str]) -> Path:
    """The GPT-2 of the comparison with a byte-level BPE learned from `texts` (built once)."""
    import hashlib

    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    digest = hashlib.sha256("\n".join(sorted(set(texts))).encode()).hexdigest()[:16]
    folder = cache / f"gpt2-byte-bpe-{digest}"
    if (folder / "config.json").exists():
        return folder
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=8000,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(sorted(set(texts)), trainer)
    end = "<|endoftext|>"
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token=end, pad_token=end)
    eos = tokenizer.eos_token_id
    config = GPT2Config(
        vocab_size=len(tokenizer), bos_token_id=eos, eos_token_id=eos, pad_token_id=eos,
        **MODEL_SIZE,
    )  # fmt: skip
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = GPT2LMHeadModel(config)
    model.generation_config.pad_token_id = eos
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def lm_eval_python(venv: Path) -> str:
    """An interpreter that imports lm_eval: this one, or the benchmark's own environment
    (made with pip if it is not there)."""
    try:
        import lm_eval  # noqa: F401

        return sys.executable
    except ImportError:
        pass
    python = venv / "bin" / "python"
    check = [str(python), "-c", "import lm_eval, transformers, accelerate"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return str(python)
    print(f"installing lm-evaluation-harness into {venv} (once) ...", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pins = [f"{name}=={metadata.version(name)}" for name in ("torch", "transformers", "accelerate")]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as constraints:
        constraints.write("\n".join(pins) + "\n")
    install = [str(python), "-m", "pip", "install", "-q", "-c", constraints.name]
    subprocess.run([*install, "lm_eval[hf]", "accelerate"], check=True)
    os.unlink(constraints.name)
    return str(python)


def lm_eval_version(python: str) -> str:
    code = "from importlib.metadata import version; print(version('lm_eval'))"
    return subprocess.run([python, "-c", code], capture_output=True, text=True).stdout.strip()


def kluebook_rank(folder: Path, requests: RequestSet, batch_size: int) -> dict:
    from kluebook.prompting.answering import answer_items
    from kluebook.prompting.local_lm import LocalCausalLM

    lm = LocalCausalLM(folder, "gpt2-byte-bpe", device="cpu", batch_size=batch_size)
    items, template = requests.items, requests.template
    answers = answer_items(lm, template, requests.prompting, items, requests.shots, "rank")
    logprobs = [answers.choice_logprobs[i][c] for i, item in enumerate(items) for c in item.choices]
    tokens = [len(lm._encode(p)) for p in requests.prompts]
    return {
        "seconds": answers.wall_time_s,
        "logprobs": logprobs,
        "prompt_tokens": sum(tokens) / len(tokens),
        "reused": answers.usage.reused_prompt_tokens,
    }


def lm_eval_worker(job_file: Path) -> None:
    """lm-eval's side: every set at every batch size, timed; the log-likelihoods of the first."""
    import torch
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    job = json.loads(job_file.read_text())
    torch.set_num_threads(job["threads"])
    found = {key: {"seconds": {}, "logprobs": None} for key in job["sets"]}
    for batch_size in job["batch_sizes"]:
        lm = HFLM(
            pretrained=job["folder"], backend="causal", device="cpu", dtype="float32",
            batch_size=batch_size,
        )  # fmt: skip
        for key, pairs in job["sets"].items():
            requests = [
                Instance("loglikelihood", {}, (context, answer), index)
                for index, (context, answer) in enumerate(pairs)
            ]
            started = time.perf_counter()
            results = lm.loglikelihood(requests, disable_tqdm=True)
            found[key]["seconds"][batch_size] = time.perf_counter() - started
            found[key]["logprobs"] = [logprob for logprob, _ in results]
    job_file.with_suffix(".out.json").write_text(json.dumps(found))


def print_rank(sets, ours, theirs, shots, batch_size) -> None:
    print(
        f"\nrank mode: kluebook (answer_items, batch {batch_size}) against lm-eval "
        "(HFLM.loglikelihood, its best batch size)"
    )
    print(
        f"{'task':6} {'shots':>5} {'choices':>7} {'tokens':>6} {'kluebook':>9} {'lm-eval':>9} "
        f"{'(batch)':>7} {'ratio':>7} {'max |diff|':>10} {'same pick':>9}"
    )
    for k in shots:
        total_ours = total_theirs = 0.0
        for (task, k_set), requests in sets.items():
            if k_set != k:
                continue
            mine, other = ours[(task, k)], theirs[f"{task} {k}"]
            best = min(other["seconds"], key=other["seconds"].get)
            seconds = other["seconds"][best]
            total_ours, total_theirs = total_ours + mine["seconds"], total_theirs + seconds
            gap = max(abs(a - b) for a, b in zip(mine["logprobs"], other["logprobs"], strict=True))
            same = picks_agree(requests, mine["logprobs"], other["logprobs"])
            choices = len(requests.items[0].choices)
            print(
                f"{task:6} {k:5d} {choices:7d} {mine['prompt_tokens']:6.0f} "
                f"{mine['seconds']:8.2f}s {seconds:8.2f}s {best:>7} "
                f"{seconds / mine['seconds']:6.2f}x {gap:10.1e} {same:>9}"
            )
        print(
            f"{'all':6} {k:5d} {'':7} {'':6} {total_ours:8.2f}s {total_theirs:8.2f}s {'':7} "
            f"{total_theirs / total_ours:6.2f}x"
        )


def picks_agree(requests: RequestSet, mine: list[float], other: list[float]) -> str:
    agree, start = 0, 0
    for item in requests.items:
        end = start + len(item.choices)
        a, b = mine[start:end], other[start:end]
        agree += a.index(max(a)) == b.index(max(b))
        start = end
    return f"{agree}/{len(requests.items)}"


def print_generate(folder: Path, sets, shots: int, batch_size: int) -> None:
    from kluebook.prompting.answering import answer_items
    from kluebook.prompting.local_lm import LocalCausalLM

    print(
        f"\ngenerate mode at {shots} shots (the template's max_new_tokens): kluebook "
        f"(answer_items, batch {batch_size}) against batched transformers generate (left "
        "padded, the same batches, no prefix reused)"
    )
    lm = LocalCausalLM(folder, "gpt2-byte-bpe", device="cpu", batch_size=batch_size)
    total_ours = total_theirs = 0.0
    for (task, k), requests in sets.items():
        if k != shots:
            continue
        template = requests.template
        answers = answer_items(
            lm, template, requests.prompting, requests.items, requests.shots, "generate"
        )
        started = time.perf_counter()
        plain = plain_generate(lm, requests.prompts, template.max_new_tokens, batch_size)
        seconds = time.perf_counter() - started
        total_ours, total_theirs = total_ours + answers.wall_time_s, total_theirs + seconds
        same = sum(a == b for a, b in zip(answers.raw_answers, plain, strict=True))
        print(
            f"{task:6} {k:5d} kluebook {answers.wall_time_s:7.2f}s  transformers "
            f"{seconds:7.2f}s  {seconds / answers.wall_time_s:5.2f}x  same answers "
            f"{same}/{len(plain)}"
        )
    print(
        f"{'all':6} {shots:5d} kluebook {total_ours:7.2f}s  transformers {total_theirs:7.2f}s  "
        f"{total_theirs / total_ours:5.2f}x"
    )


def plain_generate(lm, prompts: list[str], max_new_tokens: int, batch_size: int) -> list[str]:
    """Greedy `generate` on left-padded batches of the prompts, longest first."""
    import torch

    tokenizer, model = lm.tokenizer, lm.model
    tokenizer.padding_side = "left"
    order = sorted(range(len(prompts)), key=lambda i: -len(tokenizer(prompts[i]).input_ids))
    answers = [""] * len(prompts)
    for start in range(0, len(order), batch_size):
        batch = order[start : start + batch_size]
        encoded = tokenizer([prompts[i] for i in batch], return_tensors="pt", padding=True)
        with torch.inference_mode():
            output = model.generate(
                **encoded, max_new_tokens=max_new_tokens, do_sample=False,
                pad_token_id=lm.pad_id, eos_token_id=model.generation_config.eos_token_id,
            )  # fmt: skip
        width = encoded.input_ids.shape[1]
        for index, row in zip(batch, output[:, width:], strict=True):
            answers[index] = tokenizer.decode(row, skip_special_tokens=True)
    return answers


def print_memory(folder: Path, args, tasks: list[str]) -> None:
    """Peak resident memory of a fresh process answering the 5-shot RE set, here and against
    another checkout's code."""
    if "re" not in tasks:
        return
    print(f"\nresident memory, RE at 5 shots ({args.items} items x 30 choices), a fresh process")
    sources = [("this code", str(Path(__file__).resolve().parents[1] / "src"))]
    if args.against_src:
        sources.append((f"{args.against_src}", str(Path(args.against_src).resolve())))
    for label, source in sources:
        job = {
            "folder": str(folder),
            "items": args.items,
            "batch_size": args.batch_size,
            "threads": args.threads,
        }
        env = {**os.environ, "PYTHONPATH": source}
        command = [sys.executable, __file__, "--memory-worker", json.dumps(job)]
        out = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
        found = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"  {label:24} before answering {found['loaded_mb']:6.0f} MB, peak while answering "
            f"{found['peak_mb']:6.0f} MB (+{found['peak_mb'] - found['loaded_mb']:.0f} MB), "
            f"{found['seconds']:.2f} s"
        )


def memory_worker(job_text: str) -> None:
    """Answer the 5-shot RE set; print the resident memory before answering and its peak while
    answering (sampled every millisecond from /proc: the model's load peaks higher)."""
    import threading

    import torch

    from kluebook.prompting.answering import answer_items
    from kluebook.prompting.local_lm import LocalCausalLM

    job = json.loads(job_text)
    torch.set_num_threads(job["threads"])
    requests = request_set("re", 5, job["items"])
    lm = LocalCausalLM(Path(job["folder"]), "gpt2", device="cpu", batch_size=job["batch_size"])
    page = os.sysconf("SC_PAGE_SIZE") / 2**20

    def resident() -> float:
        return int(Path("/proc/self/statm").read_text().split()[1]) * page

    loaded, peak, done = resident(), [0.0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], resident())
            time.sleep(0.001)

    sampler = threading.Thread(target=sample)
    sampler.start()
    answers = answer_items(
        lm, requests.template, requests.prompting, requests.items, requests.shots, "rank"
    )
    done.set()
    sampler.join()
    print(json.dumps({"loaded_mb": loaded, "peak_mb": peak[0], "seconds": answers.wall_time_s}))


if __name__ == "__main__":
    main()
