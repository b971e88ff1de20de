"""Backend A: a local `transformers` causal LM (a hub id at a pinned commit, a local folder, or
the offline tiny stand-in), batched with left padding, on the run's GPU where there is one.

Prompts are sorted by length and answered in batches, each row padded on the left so that
every row's last token is the last position: generation continues all rows at once. In rank
mode the choices of a prompt share one pass over the tokens the rank rule conditions them on
(`conditioning_length`): those of a batch of prompts are run once, left padded, and every
choice's remaining tokens are scored after its prompt's keys and values (a prompt's 30
relations cost one prompt, not 30). Position ids count real tokens only, so a padded row is
scored as it would be alone. bf16 on a GPU that supports it,
else float32. The tokenizer's chat template is applied where it has one, unless the run asks
for the plain prompt (`use_chat_template`).

Its `usage` counts one request per prompt (in rank mode its answers share it), the prompt's
tokens (in rank mode those the answers are conditioned on, run once) and the tokens generated up
to the end of sequence (in rank mode each answer's scored tokens); no cache, so no cache hit.
"""

import inspect
from collections.abc import Sequence
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.prompting.answering import RankScores, Usage, conditioning_length
from kluebook.prompting.render import chat_prompt
from kluebook.prompting.tiny_causal_lm import TINY_CAUSAL_LM, build_tiny_causal_lm
from kluebook.training.checkpoints import model_id

DEFAULT_BATCH_SIZE = 8  # prompts (or, in rank mode, prompt-and-choice pairs) at once


def open_local_lm(
    model: str,
    revision: str = "",
    device: str | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    tiny_texts: Sequence[str] = (),
    use_chat_template: bool = True,
) -> "LocalCausalLM":
    """The causal LM `model` names: a folder, the tiny stand-in (built on `tiny_texts`), or a
    hub id at `revision` resolved to a commit (one-line error if it cannot be reached)."""
    options = {"device": device, "batch_size": batch_size, "use_chat_template": use_chat_template}
    if model == TINY_CAUSAL_LM:
        return LocalCausalLM(build_tiny_causal_lm(list(tiny_texts)), model, **options)
    if Path(model).is_dir():  # named by its id, so no error or record shows its path
        return LocalCausalLM(Path(model), model_id(model), **options)
    from kluebook.training.checkpoints import MODEL_FILES, check_model

    commit = check_model(model, revision)
    import huggingface_hub

    # A causal LM's chat template may be a file of its own beside the tokenizer's.
    files = [*MODEL_FILES, "*.jinja"]
    folder = huggingface_hub.snapshot_download(model, revision=commit, allow_patterns=files)
    return LocalCausalLM(Path(folder), model, commit, **options)


def load_tokenizer(folder: Path, name: str):
    """The tokenizer of the model in `folder` (called `name`); a one-line error where its
    files give none, or one that encodes nothing."""
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(folder)
        problem = "" if tokenizer("a 가", add_special_tokens=False).input_ids else "empty"
    except (OSError, ValueError, TypeError) as error:
        problem = type(error).__name__
    # Without tokenizer files, transformers may build an empty tokenizer that encodes nothing.
    if problem:
        raise KluebookError(
            f"model {name}: no tokenizer could be loaded from its files ({problem}); "
            "a prompted run needs the model's tokenizer"
        )
    return tokenizer


class LocalCausalLM:
    """A causal LM and its tokenizer, loaded from a folder, ready to answer prompts."""

    def __init__(
        self,
        folder: Path,
        name: str,
        revision: str = "",
        device: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        use_chat_template: bool = True,
    ):
        import torch
        from transformers import AutoModelForCausalLM

        self.name, self.revision, self.batch_size = name, revision, batch_size
        self.tokenizer = load_tokenizer(folder, name)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        on_gpu = self.device.startswith("cuda")
        self.dtype = torch.bfloat16 if on_gpu and torch.cuda.is_bf16_supported() else torch.float32
        self.model = AutoModelForCausalLM.from_pretrained(folder, dtype=self.dtype)
        self.model.to(self.device).eval()
        self.pad_id = self.tokenizer.pad_token_id
        if self.pad_id is None:
            self.pad_id = self.tokenizer.eos_token_id or 0
        self.chat = use_chat_template and bool(getattr(self.tokenizer, "chat_template", None))
        self.context = getattr(self.model.config, "max_position_embeddings", None) or (
            self.tokenizer.model_max_length
        )
        # The key-value cache's argument (and output) name: `cache` since transformers 5.2x,
        # `past_key_values` before (and in architectures not yet renamed).
        forward = inspect.signature(self.model.forward).parameters
        self._cache_name = "cache" if "cache" in forward else "past_key_values"
        self.usage = Usage()

    def provenance(self) -> dict:
        """What a run record says about this backend."""
        return {
            "backend": "transformers",
            "model": self.name,
            "revision": self.revision,
            "device": self.device,
            "dtype": str(self.dtype).removeprefix("torch."),
            "chat_template": self.chat,
        }

    def model_input(self, text: str) -> str:
        return chat_prompt(text, self.tokenizer) if self.chat else text

    def _encode(self, text: str) -> list[int]:
        # A chat template writes its own special tokens; plain text gets the tokenizer's.
        return self.tokenizer(text, add_special_tokens=not self.chat).input_ids

    def _check_length(self, tokens: int, extra: int, what: str) -> None:
        if tokens + extra > self.context:
            raise KluebookError(
                f"{what} is {tokens} tokens{f' + {extra} new' if extra else ''}, "
                f"{tokens + extra - self.context} more than the {self.context}-token context of "
                f"{self.name}: use fewer shots or a model with a longer context"
            )

    def generate(self, prompts: Sequence[str], max_new_tokens: int) -> list[str]:
        import torch
        from transformers import GenerationConfig

        encoded = [self._encode(prompt) for prompt in prompts]
        for index, ids in enumerate(encoded):
            self._check_length(len(ids), max_new_tokens, f"prompt {index + 1}")
        config = GenerationConfig(
            max_new_tokens=max_new_tokens,
            do_sample=False,
            pad_token_id=self.pad_id,
            eos_token_id=self.model.generation_config.eos_token_id,
        )
        answers: list[str] = [""] * len(prompts)
        ends = (
            config.eos_token_id if isinstance(config.eos_token_id, list) else [config.eos_token_id]
        )
        written = 0
        for batch in self._batches(encoded):
            input_ids, attention_mask = self._left_padded([encoded[i] for i in batch])
            with torch.inference_mode():
                output = self.model.generate(
                    input_ids=input_ids, attention_mask=attention_mask, generation_config=config
                )
            new_tokens = output[:, input_ids.shape[1] :].tolist()
            for index, tokens in zip(batch, new_tokens, strict=True):
                answers[index] = self.tokenizer.decode(tokens, skip_special_tokens=True)
                # A row that ended early is padded after its end of sequence.
                written += next((i + 1 for i, t in enumerate(tokens) if t in ends), len(tokens))
        read = sum(len(ids) for ids in encoded)
        self.usage += Usage(len(prompts), 0, read, written)
        return answers

    def loglikelihoods(self, requests: Sequence[tuple[str, Sequence[str]]]) -> list[RankScores]:
        """Each prompt's answers scored by the rank rule: the tokens that the prompt and all
        its answers' whole texts share are run once, and each answer's remaining tokens are
        scored after them. In batches."""
        contexts, tails, crossings, asked = [], [], [], 0
        for prompt, answers in requests:
            # Each whole text tokenized at once: a token may span the prompt's end.
            wholes = [self._encode(prompt + answer) for answer in answers]
            for whole in wholes:
                asked += 1
                self._check_length(len(whole), 0, f"request {asked} (prompt and answer)")
            length, crossed = conditioning_length(self._encode(prompt), wholes)
            contexts.append(wholes[0][:length])
            tails.append([whole[length:] for whole in wholes])
            crossings.append(crossed)
        scores: list[list[float]] = [[] for _ in requests]
        for batch in self._batches(contexts):
            found = self._after_prompts([contexts[b] for b in batch], [tails[b] for b in batch])
            for index, group_scores in zip(batch, found, strict=True):
                scores[index] = group_scores
        scored = sum(len(tail) for own in tails for tail in own)
        self.usage += Usage(len(requests), 0, sum(len(c) for c in contexts), scored)
        return [RankScores(s, c) for s, c in zip(scores, crossings, strict=True)]

    def _after_prompts(
        self, contexts: list[list[int]], tails: list[list[list[int]]]
    ) -> list[list[float]]:
        """For each context, the log-likelihood of each of its token lists `tails`: one
        left-padded pass over the contexts, whose keys and values every answer then reads
        (`batch_size` answers at a time)."""
        import copy

        import torch

        input_ids, attention_mask = self._left_padded(contexts)
        with torch.inference_mode():
            prompts = self.model(
                input_ids=input_ids,
                attention_mask=attention_mask,
                position_ids=(attention_mask.cumsum(-1) - 1).clamp(min=0),
                use_cache=True,
                logits_to_keep=1,
            )
            first = torch.log_softmax(prompts.logits[:, -1].float(), dim=-1)
            rows = [(owner, tail) for owner, own in enumerate(tails) for tail in own]
            scores = [first[owner, tail[0]].item() for owner, tail in rows]
            longer = [r for r, (_, tail) in enumerate(rows) if len(tail) > 1]
            for start in range(0, len(longer), self.batch_size):
                chunk = longer[start : start + self.batch_size]
                owners = torch.tensor([rows[r][0] for r in chunk], device=self.device)
                cache = copy.deepcopy(getattr(prompts, self._cache_name))
                cache.batch_select_indices(owners)  # each answer's row: its context's cache
                # After the context, an answer's tokens but its last predict the ones after.
                inputs = [rows[r][1][:-1] for r in chunk]
                width = max(len(i) for i in inputs)
                real = torch.tensor(
                    [[1] * len(i) + [0] * (width - len(i)) for i in inputs], device=self.device
                )
                padded = [i + [self.pad_id] * (width - len(i)) for i in inputs]
                seen = torch.tensor([len(contexts[rows[r][0]]) for r in chunk], device=self.device)
                logits = self.model(
                    input_ids=torch.tensor(padded, device=self.device),
                    attention_mask=torch.cat([attention_mask[owners], real], dim=1),
                    position_ids=seen[:, None] + torch.arange(width, device=self.device),
                    **{self._cache_name: cache},
                ).logits
                logprobs = torch.log_softmax(logits.float(), dim=-1)
                for row, r in enumerate(chunk):
                    targets = torch.tensor(rows[r][1][1:], device=self.device)
                    picked = logprobs[row, : len(targets)].gather(-1, targets.unsqueeze(-1))
                    scores[r] += picked.sum().item()
        found: list[list[float]] = [[] for _ in contexts]
        for (owner, _), score in zip(rows, scores, strict=True):
            found[owner].append(score)
        return found

    def _batches(self, sequences: list[list[int]]) -> list[list[int]]:
        """Indices of `sequences`, longest first, in batches of `batch_size`."""
        order = sorted(range(len(sequences)), key=lambda i: (-len(sequences[i]), i))
        return [order[i : i + self.batch_size] for i in range(0, len(order), self.batch_size)]

    def _left_padded(self, rows: list[list[int]]):
        import torch

        width = max(len(row) for row in rows)
        ids = [[self.pad_id] * (width - len(row)) + row for row in rows]
        mask = [[0] * (width - len(row)) + [1] * len(row) for row in rows]
        return (
            torch.tensor(ids, device=self.device),
            torch.tensor(mask, device=self.device),
        )
