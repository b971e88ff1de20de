"""Backend A: a local `transformers` causal LM (a hub id at a pinned commit, a local folder, or
the offline tiny stand-in), batched with left padding, on the run's GPU where there is one.

What every prompt of a call shares is computed once: one draw of demonstrations serves every
item of a run, so all its prompts begin with the same tokens (a chat template's opening, the
instruction, the demonstrations). The longest token prefix common to all of them (tokens, not
text: a token that merges across the end of the shared text is not shared) is run once, and
each batch reads its keys and values as views, one copy whatever the batch size.

Prompts are sorted by length and answered in batches after those tokens, each row's own tokens
padded on the left so that every row's last token is the last position: generation continues
all rows at once. In rank mode a prompt's choices are scored in the prompt's own pass: its row
holds its tokens up to those the rank rule conditions them on (`conditioning_length`), then
each choice's remaining tokens but the last, each attending to the prompt and to its own
earlier tokens only (a 4D mask), so a one-token choice is read from the prompt's last position
and a prompt's 30 relations cost one row, not 30. Position ids count real tokens only, so a
padded row is scored as it would be alone. A model whose layers look back a sliding window
shares no prefix (its mask keeps the window). bf16 on a GPU that supports it, else float32. The
tokenizer's chat template is applied where it has one, unless the run asks for the plain prompt
(`use_chat_template`).

Its `usage` counts one request per prompt (in rank mode its answers share it), the prompt's
tokens (in rank mode those the answers are conditioned on) run, the shared ones once and those
reused for the other prompts apart (`reused_prompt_tokens`), and the tokens generated up to the
end of sequence (in rank mode each answer's scored tokens); no cache, so no cache hit.
"""

import inspect
from collections.abc import Sequence
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.prompting.answering import RankRequest, RankScores, Usage, conditioning_length
from kluebook.prompting.render import chat_prompt
from kluebook.prompting.tiny_causal_lm import TINY_CAUSAL_LM, build_tiny_causal_lm
from kluebook.training.checkpoints import model_id

DEFAULT_BATCH_SIZE = 8  # prompts at once (in rank mode each with all its choices)


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


def sliding_attention(config) -> bool:
    """Whether some layer of the model attends to a sliding window only (its keys and values
    then depend on how far back a token lies, so no prefix is shared among prompts)."""
    layer_types = getattr(config, "layer_types", None)
    if layer_types:
        return any(kind != "full_attention" for kind in layer_types)
    window = getattr(config, "sliding_window", None)
    return bool(window) and getattr(config, "use_sliding_window", True)


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
        self._sliding = sliding_attention(self.model.config)
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

    def _encode_all(self, texts: list[str]) -> list[list[int]]:
        """`_encode` of each text, in one call of the tokenizer."""
        return self.tokenizer(texts, add_special_tokens=not self.chat).input_ids if texts else []

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

        encoded = self._encode_all(list(prompts))
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
        shared = self._shared_length(encoded)
        prefix = torch.tensor([encoded[0][:shared]], dtype=torch.long, device=self.device)
        cache = self._prefix_pass(prefix)
        written = 0
        for batch in self._batches(encoded):
            rests, attention = self._left_padded([encoded[i][shared:] for i in batch])
            # The shared tokens lead every row, their keys and values a view of the one pass.
            rows = len(batch)
            input_ids = torch.cat([prefix.expand(rows, -1), rests], dim=1)
            attention_mask = torch.cat([torch.ones_like(prefix).expand(rows, -1), attention], 1)
            reuse = {self._cache_name: self._expanded(cache, rows)} if shared else {}
            with torch.inference_mode():
                output = self.model.generate(
                    input_ids=input_ids,
                    attention_mask=attention_mask,
                    generation_config=config,
                    **reuse,
                )
            new_tokens = output[:, input_ids.shape[1] :].tolist()
            for index, tokens in zip(batch, new_tokens, strict=True):
                answers[index] = self.tokenizer.decode(tokens, skip_special_tokens=True)
                # A row that ended early is padded after its end of sequence.
                written += next((i + 1 for i, t in enumerate(tokens) if t in ends), len(tokens))
        read = sum(len(ids) for ids in encoded)
        reused = shared * (len(encoded) - 1)
        self.usage += Usage(len(prompts), 0, read - reused, written, reused_prompt_tokens=reused)
        return answers

    def loglikelihoods(self, requests: Sequence[RankRequest]) -> list[RankScores]:
        """Each prompt's answers scored by the rank rule: the tokens that the prompt and all
        its answers' whole texts share are run once, and each answer's remaining tokens are
        scored after them. The tokens that every prompt shares are run once for them all. In
        batches of prompts, each with all its answers."""
        # Each whole text tokenized at once (a token may span the prompt's end), all in one call.
        texts = [r.prompt + answer for r in requests for answer in r.continuations]
        encoded = iter(self._encode_all(texts))
        prompts = self._encode_all([request.prompt for request in requests])
        contexts, tails, crossings, asked = [], [], [], 0
        for request, own in zip(requests, prompts, strict=True):
            wholes = [next(encoded) for _ in request.continuations]
            for whole in wholes:
                asked += 1
                self._check_length(len(whole), 0, f"request {asked} (prompt and answer)")
            length, crossed = conditioning_length(own, wholes)
            contexts.append(wholes[0][:length])
            tails.append([whole[length:] for whole in wholes])
            crossings.append(crossed)
        shared = self._shared_length(contexts)
        import torch

        shared_ids = torch.tensor([contexts[0][:shared]], dtype=torch.long, device=self.device)
        cache = self._prefix_pass(shared_ids)
        scores: list[list[float]] = [[] for _ in requests]
        for batch in self._batches(contexts):
            found = self._after_prefix(
                cache, shared, [contexts[b] for b in batch], [tails[b] for b in batch]
            )
            for index, group_scores in zip(batch, found, strict=True):
                scores[index] = group_scores
        scored = sum(len(tail) for own in tails for tail in own)
        reused = shared * (len(contexts) - 1)
        read = sum(len(c) for c in contexts) - reused
        self.usage += Usage(len(requests), 0, read, scored, reused_prompt_tokens=reused)
        return [RankScores(s, c) for s, c in zip(scores, crossings, strict=True)]

    def _shared_length(self, sequences: list[list[int]]) -> int:
        """How many leading tokens every one of `sequences` has in common (a token prefix, so
        a chat template's opening and a token that merges across the end of the shared text
        are handled alike), leaving each at least its last token to run; none for a single
        sequence, or for a model whose attention looks back a sliding window only."""
        if len(sequences) < 2 or self._sliding:
            return 0
        first, length = sequences[0], min(map(len, sequences)) - 1
        for other in sequences[1:]:
            length = next((i for i in range(length) if other[i] != first[i]), length)
        return length

    def _prefix_pass(self, prefix):
        """The keys and values of the shared tokens `prefix` (one row; None if it is empty)."""
        import torch

        if not prefix.shape[1]:
            return None
        with torch.inference_mode():
            output = self.model(input_ids=prefix, use_cache=True, logits_to_keep=1)
        return getattr(output, self._cache_name)

    @staticmethod
    def _expanded(cache, rows: int):
        """A cache whose every row is the one-row `cache`, as views of it: the shared keys and
        values are held once whatever the batch (a forward appends to copies, not to them)."""
        import copy

        if cache is None:
            return None
        expanded = copy.copy(cache)
        expanded.layers = []
        for layer in cache.layers:
            view = copy.copy(layer)
            view.keys = layer.keys.expand(rows, -1, -1, -1)
            view.values = layer.values.expand(rows, -1, -1, -1)
            expanded.layers.append(view)
        return expanded

    def _after_prefix(
        self, cache, shared: int, contexts: list[list[int]], tails: list[list[list[int]]]
    ) -> list[list[float]]:
        """For each context, the log-likelihood of each of its token lists `tails`, in one pass
        after the `shared` tokens' `cache`: a row per context holds its own tokens left padded,
        then every tail but its last token, each tail attending to the context and to its own
        earlier tokens only (a mask per row), at the positions it would have alone. A tail's
        first token is read from its context's last position, so a one-token answer costs no
        position of its own."""
        import torch

        rows, width = len(contexts), max(len(c) for c in contexts) - shared
        inputs = [[tail[:-1] for tail in own] for own in tails]
        answers = max(sum(len(i) for i in own) for own in inputs)
        length = width + answers
        ids = torch.full((rows, length), self.pad_id, dtype=torch.long)
        positions = torch.zeros((rows, length), dtype=torch.long)
        # Each column's segment: -1 padding, 0 the context, k the k-th answer's tokens.
        segments = torch.full((rows, length), -1, dtype=torch.long)
        picks: list[tuple[int, int, int, int]] = []  # row, logit column, token, answer index
        counted = 0
        for row, (context, own) in enumerate(zip(contexts, inputs, strict=True)):
            rest = context[shared:]
            ids[row, width - len(rest) : width] = torch.tensor(rest)
            positions[row, width - len(rest) : width] = torch.arange(shared, len(context))
            segments[row, width - len(rest) : width] = 0
            column = width
            for k, (tail, tokens) in enumerate(zip(tails[row], own, strict=True)):
                # Logit column 0 is the context's last position; column c + 1 is input c's.
                picks.append((row, 0, tail[0], counted))
                for t, token in enumerate(tail[1:]):
                    picks.append((row, column - width + t + 1, token, counted))
                if tokens:
                    ids[row, column : column + len(tokens)] = torch.tensor(tokens)
                    span = torch.arange(len(context), len(context) + len(tokens))
                    positions[row, column : column + len(tokens)] = span
                    segments[row, column : column + len(tokens)] = k + 1
                column += len(tokens)
                counted += 1
        mask = self._answers_mask(segments, positions, shared)
        with torch.inference_mode():
            logits = self.model(
                input_ids=ids.to(self.device),
                attention_mask=mask,
                position_ids=positions.to(self.device),
                logits_to_keep=answers + 1,
                **{self._cache_name: self._expanded(cache, rows)},
            ).logits
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            row, column, token, owner = torch.tensor(picks, device=self.device).unbind(-1)
            summed = torch.zeros(counted, dtype=torch.float64, device=self.device)
            summed.index_add_(0, owner, logprobs[row, column, token].double())
        found, values = [], iter(summed.tolist())
        for own in tails:
            found.append([next(values) for _ in own])
        return found

    def _answers_mask(self, segments, positions, shared: int):
        """The additive attention mask of `_after_prefix`'s rows (a mask per kind of layer where
        some layers look back a sliding window only)."""
        import torch

        rows, length = segments.shape
        query, key = segments[:, :, None], segments[:, None, :]
        causal = torch.ones(length, length, dtype=torch.bool).tril()
        seen = causal & (query >= 0) & ((key == 0) | (key == query))
        seen |= torch.eye(length, dtype=torch.bool) & (query < 0)  # padding sees itself alone
        before = (segments >= 0)[:, :, None].expand(rows, length, shared)
        allowed = torch.cat([before, seen], dim=-1)[:, None]

        def additive(allowed):
            mask = torch.zeros(allowed.shape, dtype=self.dtype)
            return mask.masked_fill_(~allowed, torch.finfo(self.dtype).min).to(self.device)

        if not self._sliding:
            return additive(allowed)
        keys = torch.cat([torch.arange(shared).expand(rows, shared), positions], dim=1)
        back = positions[:, :, None] - keys[:, None, :]
        window = allowed & (back < self.model.config.sliding_window)[:, None]
        if not getattr(self.model.config, "layer_types", None):
            return additive(window)
        return {"full_attention": additive(allowed), "sliding_attention": additive(window)}

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
