"""Training throughput of the KLUE-RoBERTa shapes per task and per speed setting, and the
projected wall time of the paper's run matrix.

    python benchmarks/gpu_throughput.py [--shapes large,base,small] [--steps 20] [--seeds 3]
    python benchmarks/gpu_throughput.py --tiny     # a tiny shape on CPU: exercises the code only

For each task: a randomly initialised encoder of the exact shape of klue/roberta-large (and
-base, -small; klue/bert-base has -base's shape) with a standard head (sequence classification,
token classification for NER and DP, span extraction for MRC and WoS: the DP biaffine parser and
the TRADE decoder add work that is not counted, so their times are lower bounds). Batches are
real-length batches: the token lengths of the task's real KLUE text when KLUEBOOK_DATA_DIR holds
it (train split, else dev), of the generated smoke data otherwise, cut at the official
max_length, grouped by length as the training does, at the official batch size of the shape.
Tokens are counted with the klue/roberta tokenizer when the Hugging Face cache has it, else with
a 32,000-piece WordPiece vocabulary trained on the same text (its counts are close, not equal).

Per precision setting (the speed switches of kluebook.training.speed; fp32 is the official recipe)
it prints training tokens/s (real tokens; padding excluded), model FLOPs utilisation (training
FLOPs of the computed tokens, 6 x parameters + attention, over the GPU's dense peak for that
precision), and peak GPU memory. The projection sums, over the tasks, checkpoints and seeds of
the paper matrix, the official epochs of training tokens (the official train sizes at the
measured mean tokens per record) over the measured speed, plus the dev evaluations (forward
only, counted at a third of a training step's cost).
"""

import argparse
import random
import statistics
import time
from dataclasses import dataclass

import torch

from kluebook.common.paths import KLUE_DATA
from kluebook.data.loading import generated_data_dir
from kluebook.tasks import all_tasks, task_module
from kluebook.training import speed
from kluebook.training.recipes import official_recipe

# The encoders of the released checkpoints (their config.json), and a tiny one for CI.
SHAPES = {
    "large": {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16},
    "base": {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12},
    "small": {"hidden_size": 768, "num_hidden_layers": 6, "num_attention_heads": 12},
    "tiny": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4},
}
CHECKPOINT_OF_SHAPE = {
    "large": "klue/roberta-large",
    "base": "klue/roberta-base",
    "small": "klue/roberta-small",
    "tiny": "klue/roberta-base",
}
SHAPE_OF_MODEL = {
    "klue/roberta-large": "large",
    "klue/roberta-base": "base",
    "klue/bert-base": "base",
    "klue/roberta-small": "small",
}
VOCAB_SIZE = 32000
SETTINGS = {
    "fp32": {},
    "tf32": {"tf32": True},
    "bf16": {"bf16": True},
    "all four": {"tf32": True, "bf16": True, "fused_adamw": True, "sdpa": True},
}
# Dense peak TFLOP/s per precision (vendor data sheets, SXM parts), by a word of the GPU's name.
PEAK_TFLOPS = {
    "H200": {"fp32": 67, "tf32": 495, "bf16": 989},
    "H100": {"fp32": 67, "tf32": 495, "bf16": 989},
    "A100": {"fp32": 19.5, "tf32": 156, "bf16": 312},
    "L4": {"fp32": 30.3, "tf32": 60, "bf16": 121},
}
# Examples in the official KLUE v1.1 train and dev files (WoS: dialogues), for the projection.
OFFICIAL_SIZES = {
    "ynat": (45678, 9107),
    "sts": (11668, 519),
    "nli": (24998, 3000),
    "ner": (21008, 5000),
    "re": (32470, 7765),
    "dp": (10000, 2000),
    "mrc": (17554, 5841),
    "wos": (8000, 1000),
}
HEADS = {"ner": "token", "dp": "token", "mrc": "span", "wos": "span"}
LABELS = {"ynat": 7, "sts": 1, "nli": 3, "re": 30, "ner": 13, "dp": 38}
MRC_STRIDE = 128


def task_texts(name: str, records: list[dict]) -> list:
    """The text each training example encodes (a pair as a tuple)."""
    if name == "ynat":
        return [r["title"] for r in records]
    if name == "sts":
        return [(r["sentence1"], r["sentence2"]) for r in records]
    if name == "nli":
        return [(r["premise"], r["hypothesis"]) for r in records]
    if name == "re":
        from kluebook.tasks.re.data import mark_entities

        return [mark_entities(r) for r in records]
    if name in ("ner", "dp"):
        return [r["sentence"] if "sentence" in r else "".join(r["chars"]) for r in records]
    if name == "mrc":
        return [(r["question"], r["context"]) for r in records]
    if name == "wos":  # one example per user turn: the dialogue so far
        texts = []
        for dialogue in records:
            history = []
            for turn in dialogue["dialogue"]:
                history.append(turn["text"])
                if turn["role"] == "user":
                    texts.append(" ".join(history))
        return texts
    raise ValueError(f"no text extractor for task {name!r}")


def load_text(task) -> tuple[list, int, str]:
    """The task's text (one item per model example), its number of records and its source:
    real (train, else dev) where KLUEBOOK_DATA_DIR has it, else the generated smoke data."""
    for split in ("train", "dev"):
        relative = task.files[split]
        stem, dot, suffix = relative.rpartition(".")
        for candidate in (relative, f"{stem}.partial{dot}{suffix}"):
            path = KLUE_DATA / candidate
            if path.is_file():
                try:
                    records = task_module(task).read_official(path)
                    return task_texts(task.name, records), len(records), f"real {split}"
                except Exception:  # a reduced copy without the fields we read: try the next
                    continue
    records = task_module(task).read_official(generated_data_dir(task) / task.files["train"])
    return task_texts(task.name, records), len(records), "generated"


def token_counter(texts: list, tiny: bool):
    """A function from texts to token counts with [CLS]/[SEP]s, and what it is."""
    if not tiny:
        try:
            from transformers import AutoTokenizer

            tokenizer = AutoTokenizer.from_pretrained("klue/roberta-base", local_files_only=True)

            def count(batch):
                return [len(ids) for ids in tokenizer(*_columns(batch))["input_ids"]]

            return count, "klue/roberta tokenizer"
        except Exception:  # not in the cache (no hub access): train a stand-in vocabulary
            pass
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    backend = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    backend.normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=False)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    size = 2000 if tiny else VOCAB_SIZE
    flat = [t for text in texts for t in (text if isinstance(text, tuple) else (text,))]
    trainer = trainers.WordPieceTrainer(vocab_size=size, show_progress=False)
    backend.train_from_iterator(flat, trainer)

    def count(batch):
        first, second = _columns(batch)
        lengths = [len(e.ids) + 2 for e in backend.encode_batch(first)]
        if second is not None:
            pairs = zip(lengths, backend.encode_batch(second), strict=True)
            lengths = [n + len(e.ids) + 1 for n, e in pairs]
        return lengths

    return count, f"a {size:,}-piece WordPiece trained on this text"


def _columns(batch: list):
    if batch and isinstance(batch[0], tuple):
        return [a for a, _ in batch], [b for _, b in batch]
    return batch, None


def example_lengths(name: str, raw: list[int], max_length: int) -> list[int]:
    """Lengths of the examples the model sees: cut at max_length; MRC long contexts become
    several windows with a stride of MRC_STRIDE tokens, as the QA preprocessing does."""
    if name != "mrc":
        return [min(n, max_length) for n in raw]
    lengths = []
    for n in raw:
        while n > max_length:
            lengths.append(max_length)
            n -= max_length - MRC_STRIDE
        lengths.append(n)
    return lengths


def grouped_batches(lengths: list[int], batch_size: int, rng: random.Random, count: int):
    """`count` batches as length-grouped sampling makes them: a random mega-batch of 50 batches,
    sorted by length, cut into batches."""
    batches = []
    while len(batches) < count:
        mega = rng.sample(lengths, min(len(lengths), 50 * batch_size))
        mega.sort(reverse=True)
        chunk = [mega[i : i + batch_size] for i in range(0, len(mega), batch_size)]
        batches += [b for b in chunk if len(b) == batch_size or len(mega) < batch_size]
    rng.shuffle(batches)
    return batches[:count]


def build_model(task: str, shape: dict, max_positions: int):
    from transformers import (
        RobertaConfig,
        RobertaForQuestionAnswering,
        RobertaForSequenceClassification,
        RobertaForTokenClassification,
    )

    config = RobertaConfig(
        vocab_size=VOCAB_SIZE,
        intermediate_size=4 * shape["hidden_size"],
        max_position_embeddings=max_positions + 2,
        type_vocab_size=1,
        pad_token_id=1,
        num_labels=LABELS.get(task, 2),
        **shape,
    )
    head = HEADS.get(task, "sequence")
    cls = {
        "sequence": RobertaForSequenceClassification,
        "token": RobertaForTokenClassification,
        "span": RobertaForQuestionAnswering,
    }[head]
    return cls(config), head


@dataclass
class Measure:
    tokens_per_s: float
    mfu: float | None
    peak_memory_gb: float | None
    steps: int


def training_flops(shape: dict, parameters: int, batch: list[int]) -> float:
    """Training FLOPs of one padded batch: 6 per parameter and token, plus attention."""
    width = max(batch)
    tokens = width * len(batch)
    attention = 12 * shape["num_hidden_layers"] * shape["hidden_size"] * width * width * len(batch)
    return 6 * parameters * tokens + attention


def measure(task, shape, recipe, lengths, setting, args, device) -> Measure:
    torch.manual_seed(0)
    model, head = build_model(task, shape, recipe["max_length"])
    model.to(device).train()
    switches = type("Switches", (), {"tf32": False, "bf16": False, "sdpa": False})()
    for key, value in SETTINGS[setting].items():
        setattr(switches, key, value)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = bool(switches.tf32)
        torch.backends.cudnn.allow_tf32 = bool(switches.tf32)
    speed.set_attention(model, "sdpa" if switches.sdpa else "eager")
    fused = SETTINGS[setting].get("fused_adamw", False)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, eps=1e-8, fused=fused or None)
    parameters = sum(p.numel() for n, p in model.named_parameters() if "embeddings" not in n)
    rng = random.Random(0)
    batches = grouped_batches(lengths, recipe["batch_size"], rng, args.warmup + args.steps)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    real = flops = 0.0
    started = None
    for index, batch in enumerate(batches):
        if index == args.warmup:
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            started = time.perf_counter()
        inputs = make_inputs(batch, head, model.config.num_labels, device)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bool(switches.bf16)):
            loss = model(**inputs).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if index >= args.warmup:
            real += sum(batch)
            flops += training_flops(shape, parameters, batch)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    seconds = time.perf_counter() - started
    peak = PEAK_TFLOPS.get(gpu_family(device), {})
    precision = "bf16" if switches.bf16 else ("tf32" if switches.tf32 else "fp32")
    peak_tflops = args.peak_tflops or peak.get(precision)
    return Measure(
        tokens_per_s=real / seconds,
        mfu=flops / seconds / (peak_tflops * 1e12) if peak_tflops else None,
        peak_memory_gb=torch.cuda.max_memory_allocated(device) / 2**30
        if device.type == "cuda"
        else None,
        steps=args.steps,
    )


def make_inputs(batch: list[int], head: str, labels: int, device) -> dict:
    width = max(batch)
    ids = torch.randint(5, VOCAB_SIZE, (len(batch), width))
    mask = torch.zeros(len(batch), width, dtype=torch.long)
    for row, n in enumerate(batch):
        mask[row, :n] = 1
    ids = ids.masked_fill(mask == 0, 1)
    inputs = {"input_ids": ids, "attention_mask": mask}
    if head == "sequence":
        inputs["labels"] = (
            torch.rand(len(batch)) * 5 if labels == 1 else torch.randint(0, labels, (len(batch),))
        )
    elif head == "token":
        inputs["labels"] = torch.randint(0, labels, (len(batch), width)).masked_fill(
            mask == 0, -100
        )
    else:
        inputs["start_positions"] = torch.randint(0, width, (len(batch),))
        inputs["end_positions"] = torch.randint(0, width, (len(batch),))
    return {k: v.to(device) for k, v in inputs.items()}


def gpu_family(device) -> str:
    if device.type != "cuda":
        return "cpu"
    name = torch.cuda.get_device_name(device)
    return next((family for family in PEAK_TFLOPS if family in name), name)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tiny", action="store_true", help="a tiny shape, on CPU if no GPU")
    parser.add_argument("--shapes", default="large,base,small", help="among large, base, small")
    parser.add_argument("--tasks", help="comma-separated (default: all)")
    parser.add_argument(
        "--settings", default=",".join(SETTINGS), help="among " + ", ".join(SETTINGS)
    )
    parser.add_argument("--steps", type=int, default=20, help="timed steps per measurement")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per cell of the projection")
    parser.add_argument("--gpus", type=int, default=1, help="GPUs the projection divides by")
    parser.add_argument("--peak-tflops", type=float, help="the GPU's dense peak (else known GPUs)")
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    shapes = ["tiny"] if args.tiny else args.shapes.split(",")
    settings = args.settings.split(",")
    tasks = [all_tasks()[t] for t in args.tasks.split(",")] if args.tasks else all_tasks().values()
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU, no GPU"
    print(f"device: {where}; torch {torch.__version__}, {torch.get_num_threads()} CPU threads")
    if args.tiny:
        print("tiny shape: these figures exercise the benchmark, they project nothing real")
    measured: dict[tuple[str, str, str], Measure] = {}
    workload: dict[tuple[str, str], tuple[float, float]] = {}
    header = f"{'task':5} {'shape':5} {'setting':9} {'batch':>5} {'max len':>7} {'mean len':>8}"
    print(f"{header} {'tokens/s':>10} {'MFU':>6} {'peak GB':>8}")
    for task in tasks:
        texts, found, source = load_text(task)
        count, counter = token_counter(texts, args.tiny)
        raw = count(texts)
        print(f"{task.name}: {len(texts):,} examples of {source} text, counted with {counter}")
        # The projection: the official split sizes (else what was found) at these lengths.
        train_size, dev_size = OFFICIAL_SIZES.get(task.name, (found, found / 5))
        for shape_name in shapes:
            recipe = official_recipe(task, CHECKPOINT_OF_SHAPE[shape_name])
            lengths = example_lengths(task.name, raw, recipe["max_length"])
            per_record = sum(lengths) / found  # tokens per official record (turns, windows)
            workload[(task.name, shape_name)] = (train_size * per_record, dev_size * per_record)
            for setting in settings:
                m = measure(task.name, SHAPES[shape_name], recipe, lengths, setting, args, device)
                measured[(task.name, shape_name, setting)] = m
                mfu = f"{m.mfu:6.1%}" if m.mfu is not None else f"{'-':>6}"
                memory = f"{m.peak_memory_gb:8.1f}" if m.peak_memory_gb is not None else f"{'-':>8}"
                print(
                    f"{task.name:5} {shape_name:5} {setting:9} {recipe['batch_size']:>5} "
                    f"{recipe['max_length']:>7} {statistics.mean(lengths):>8.1f} "
                    f"{m.tokens_per_s:>10,.0f} {mfu} {memory}"
                )
    project(args, tasks, shapes, settings, measured, workload)


def project(args, tasks, shapes, settings, measured, workload) -> None:
    """Wall time of the paper matrix (configs/paper.yaml's checkpoints x tasks x seeds)."""
    import yaml

    from kluebook.common.paths import CONFIGS

    models = yaml.safe_load((CONFIGS / "paper.yaml").read_text())["models"]
    print(
        f"projected paper matrix: {len(models)} checkpoints x {len(list(tasks))} tasks x "
        f"{args.seeds} seeds on {args.gpus} GPU(s), official epochs, dev evaluated as in the recipe"
    )
    for setting in settings:
        total = 0.0
        missing = set()
        for model in models:
            shape = "tiny" if args.tiny else SHAPE_OF_MODEL.get(model, "base")
            if shape not in shapes:
                missing.add(shape)
                continue
            for task in tasks:
                train_tokens, dev_tokens = workload[(task.name, shape)]
                recipe = official_recipe(task, model)
                rate = measured[(task.name, shape, setting)].tokens_per_s
                training = recipe["epochs"] * train_tokens / rate
                evaluations = recipe["evals_per_epoch"] * recipe["epochs"]
                evaluation = evaluations * dev_tokens / (3 * rate)  # forward only: ~1/3 a step
                total += args.seeds * (training + evaluation)
        hours = total / 3600 / args.gpus
        note = f" (shapes not measured, left out: {', '.join(sorted(missing))})" if missing else ""
        print(f"  {setting:9} {hours:8.1f} h{note}")


if __name__ == "__main__":
    main()
