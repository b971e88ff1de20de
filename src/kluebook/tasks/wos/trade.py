"""TRADE for WoS: a pre-trained encoder and a copying GRU decoder for every slot.

One example per user turn. The input is `[CLS] history [SEP] sys_t [SEP] user_t [SEP]`, the
history being the earlier utterances (system, user, ...) joined by `[SEP]`, cut from the left.
For each slot the decoder, started from the encoder's pooled output and the summed embeddings of
the slot name, writes the value word piece by word piece (a mix of generating from the vocabulary
and copying from the input), and a 5-way gate says none / dontcare / copy / yes / no.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace

import datasets
import torch
from torch import nn
from torch.nn import functional

from kluebook.training.fine_tuning import OrderedEvalTrainer

from .data import DONTCARE, NONE, split_state_item, user_states
from .metric import joint_goal_accuracy, slot_f1

GATES = (NONE, DONTCARE, "ptr", "yes", "no")
GATE_IDS = {gate: index for index, gate in enumerate(GATES)}
MAX_DECODE_STEPS = 10
TEACHER_FORCING = 0.5
# Embedding scale of the offline tiny stand-in for this task. The decoder reads the word
# embeddings directly (slot names, its own outputs), unlike the other tasks' heads; from the
# transformers default N(0, 0.02) every slot looks alike to it and its gates stay on `none` for
# some 800 steps. From N(0, 0.5), 3 smoke epochs reach slot F1 48-54 over seeds 1-4; N(0, 0.2)
# needed 4 epochs for 46-58, and N(0, 1.0) learns more slowly again.
TINY_EMBEDDING_STD = 0.5
# The choices of the switch wos_slot_name_padding, the official one first.
SLOT_NAME_PADDINGS = ("summed", "masked")


@dataclass
class TurnExample:
    guid: str
    turn: int
    input_ids: list[int]
    target_ids: list[list[int]]  # per slot: the value's word pieces then [SEP]
    gate_ids: list[int]  # per slot: index in GATES


def _token_ids(tokenizer, text: str) -> list[int]:
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def turn_inputs(
    tokenizer, history: Sequence[str], system: str, user: str, max_length: int
) -> list[int]:
    """Input ids of one user turn, keeping the last max_length-2 tokens between [CLS] and [SEP]."""
    pieces = [_token_ids(tokenizer, text) for text in [*history, system, user]]
    return _assemble(tokenizer, pieces, max_length)


def _assemble(tokenizer, pieces: Sequence[list[int]], max_length: int) -> list[int]:
    """[CLS] history [SEP] system [SEP] user [SEP] from the word pieces of every utterance."""
    sep = tokenizer.sep_token_id
    *history, system, user = pieces
    body: list[int] = []
    for index, utterance in enumerate(history):
        body += ([sep] if index else []) + utterance
    body += [sep, *system, sep, *user]
    body = body[-(max_length - 2) :]
    return [tokenizer.cls_token_id, *body, sep]


def gate_of(value: str) -> int:
    """The gate class of a slot value ("none" for an absent slot)."""
    return GATE_IDS.get(value, GATE_IDS["ptr"])


def turn_examples(
    dialogues: Sequence[dict], tokenizer, slots: Sequence[str], max_length: int
) -> list[TurnExample]:
    """One example per user turn of every dialogue, with value targets and gates for all slots."""
    value_ids: dict[str, list[int]] = {}
    examples = []
    for dialogue in dialogues:
        utterances: list[list[int]] = []  # sys_1 (empty: dialogues open with the user), user_1, ...
        system: list[int] = []
        states = iter(user_states(dialogue))
        for turn in dialogue["dialogue"]:
            if turn["role"] == "sys":
                system = _token_ids(tokenizer, turn["text"])
                continue
            user = _token_ids(tokenizer, turn["text"])
            values = dict(split_state_item(item) for item in next(states))
            targets, gates = [], []
            for slot in slots:
                value = values.get(slot, NONE)
                if value not in value_ids:
                    value_ids[value] = [*_token_ids(tokenizer, value), tokenizer.sep_token_id]
                targets.append(value_ids[value])
                gates.append(gate_of(value))
            examples.append(
                TurnExample(
                    guid=dialogue["guid"],
                    turn=len(utterances) // 2,
                    input_ids=_assemble(tokenizer, [*utterances, system, user], max_length),
                    target_ids=targets,
                    gate_ids=gates,
                )
            )
            utterances += [system, user]
            system = []
    return examples


def collate(examples: Sequence[TurnExample], pad_id: int) -> dict[str, torch.Tensor]:
    """Pad a batch: input_ids and attention_mask (B, L), target_ids (B, J, T), gate_ids (B, J)."""
    length = max(len(e.input_ids) for e in examples)
    value_length = max(len(t) for e in examples for t in e.target_ids)
    input_ids = torch.full((len(examples), length), pad_id, dtype=torch.long)
    targets = torch.full(
        (len(examples), len(examples[0].target_ids), value_length), pad_id, dtype=torch.long
    )
    for row, example in enumerate(examples):
        input_ids[row, : len(example.input_ids)] = torch.tensor(example.input_ids)
        for slot, target in enumerate(example.target_ids):
            targets[row, slot, : len(target)] = torch.tensor(target)
    return {
        "input_ids": input_ids,
        "attention_mask": (input_ids != pad_id).long(),
        "target_ids": targets,
        "gate_ids": torch.tensor([e.gate_ids for e in examples], dtype=torch.long),
    }


class Trade(nn.Module):
    """Encoder + slot-parallel pointer-generator GRU decoder with tied word embeddings."""

    def __init__(
        self,
        encoder: nn.Module,
        slot_token_ids: Sequence[Sequence[int]],
        pad_id: int,
        slot_name_padding: str = SLOT_NAME_PADDINGS[0],
        stop_ids: Sequence[int] = (),
    ):
        """`slot_name_padding`: `summed` (official) or `masked`, the recipe switch
        `wos_slot_name_padding`. `stop_ids`: the tokens a value ends at (`decode_value` stops at
        the first special token); greedy decoding stops once every slot of every example has
        written one, as later pieces are never read."""
        super().__init__()
        if slot_name_padding not in SLOT_NAME_PADDINGS:
            raise ValueError(f"slot_name_padding must be one of {SLOT_NAME_PADDINGS}")
        self.sums_slot_padding = slot_name_padding == "summed"
        config = encoder.config
        hidden = config.hidden_size
        self.encoder = encoder
        self.pad_id = pad_id
        self.teacher_forcing = TEACHER_FORCING
        # Models without a pooler (ELECTRA) get a BERT-style one: dense + tanh on the first token.
        self.pooler = (
            None
            if getattr(encoder, "pooler", None) is not None
            else nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh())
        )
        width = max(len(ids) for ids in slot_token_ids)
        slot_ids = torch.full((len(slot_token_ids), width), pad_id, dtype=torch.long)
        for index, ids in enumerate(slot_token_ids):
            slot_ids[index, : len(ids)] = torch.tensor(list(ids))
        self.register_buffer("slot_ids", slot_ids, persistent=False)
        stops = torch.tensor(sorted(stop_ids), dtype=torch.long)
        self.register_buffer("stop_ids", stops, persistent=False)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.generate_switch = nn.Linear(3 * hidden, 1)
        self.gate = nn.Linear(hidden, len(GATES))

    @property
    def embedding(self) -> nn.Embedding:
        return self.encoder.get_input_embeddings()

    def _slot_embeddings(self) -> torch.Tensor:
        """(J, H): the sum of the word-piece embeddings of each slot name, padded to the longest
        name with the pad id: with `summed` the pad rows are added too, as in the baseline."""
        embedded = self.embedding(self.slot_ids)
        if self.sums_slot_padding:
            return embedded.sum(dim=1)
        return (embedded * (self.slot_ids != self.pad_id).unsqueeze(-1)).sum(dim=1)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        target_ids: torch.Tensor | None = None,
        gate_ids: torch.Tensor | None = None,
        max_steps: int = MAX_DECODE_STEPS,
    ) -> dict[str, torch.Tensor]:
        """Probabilities (B, J, T, V) of the value word pieces, gate logits (B, J, 5) and, given
        targets, the loss: NLL of the target pieces (padding ignored) + cross-entropy of the gates.

        With targets, decoding runs for the target length and, in training mode, is teacher-forced
        for the whole batch with probability `teacher_forcing`; without them it is greedy for
        `max_steps` steps, or until every slot has written one of `stop_ids`.
        """
        encoded = self.encoder(input_ids=input_ids, attention_mask=attention_mask)
        states = encoded.last_hidden_state  # (B, L, H)
        pooled = (
            self.pooler(states[:, 0]) if self.pooler is not None else encoded.pooler_output
        )  # (B, H)
        batch, num_slots = input_ids.size(0), self.slot_ids.size(0)
        steps = target_ids.size(-1) if target_ids is not None else max_steps
        forced = (
            target_ids is not None and self.training and bool(torch.rand(()) < self.teacher_forcing)
        )
        weights = self.embedding.weight  # (V, H)
        padding = attention_mask.unsqueeze(1) == 0  # (B, 1, L)
        copy_index = input_ids.unsqueeze(1).expand(batch, num_slots, -1)

        step_input = self._slot_embeddings().unsqueeze(0).expand(batch, -1, -1)  # (B, J, H)
        hidden = pooled.unsqueeze(1).expand(-1, num_slots, -1).reshape(1, batch * num_slots, -1)
        probabilities, gate_logits = [], None
        ended = torch.zeros(batch, num_slots, dtype=torch.bool, device=input_ids.device)
        for step in range(steps):
            step_input = self.dropout(step_input)
            output, hidden = self.gru(
                step_input.reshape(batch * num_slots, 1, -1), hidden.contiguous()
            )
            output = output.view(batch, num_slots, -1)  # (B, J, H)
            scores = torch.einsum("bjh,blh->bjl", output, states).masked_fill(padding, -1e9)
            attention = scores.softmax(dim=-1)
            context = torch.einsum("bjl,blh->bjh", attention, states)
            if step == 0:
                gate_logits = self.gate(context)
            vocabulary = (output @ weights.T).softmax(dim=-1)  # (B, J, V)
            copying = torch.zeros_like(vocabulary).scatter_add_(-1, copy_index, attention)
            switch = torch.sigmoid(
                self.generate_switch(torch.cat([step_input, output, context], dim=-1))
            )
            mixed = switch * vocabulary + (1 - switch) * copying
            probabilities.append(mixed)
            next_ids = target_ids[:, :, step] if forced else mixed.argmax(dim=-1)
            if target_ids is None and self.stop_ids.numel():
                ended |= torch.isin(next_ids, self.stop_ids)
                if bool(ended.all()):
                    break
            step_input = self.embedding(next_ids)
        result = {"point_probs": torch.stack(probabilities, dim=2), "gate_logits": gate_logits}
        if target_ids is not None and gate_ids is not None:
            result["loss"] = self._loss(result, target_ids, gate_ids)
        return result

    def _loss(
        self, result: dict[str, torch.Tensor], target_ids: torch.Tensor, gate_ids: torch.Tensor
    ) -> torch.Tensor:
        picked = result["point_probs"].gather(-1, target_ids.unsqueeze(-1)).squeeze(-1)
        mask = (target_ids != self.pad_id).float()
        value_loss = -(picked.clamp_min(1e-12).log() * mask).sum() / mask.sum()
        gate_loss = functional.cross_entropy(
            result["gate_logits"].reshape(-1, len(GATES)), gate_ids.reshape(-1)
        )
        return value_loss + gate_loss


def slot_token_ids(tokenizer, slots: Sequence[str]) -> list[list[int]]:
    """Word pieces of each slot name, domain and slot separated by a space instead of `-`."""
    return [_token_ids(tokenizer, slot.replace("-", " ")) for slot in slots]


def decode_value(tokenizer, token_ids: Sequence[int]) -> str:
    """A copied value: pieces up to the first special token, detokenized with transformers
    3.5.1's default clean-up of tokenisation spaces (" ." -> ".", " ," -> ",", " 's" -> "'s", …;
    transformers 5 does it only when asked), then the baseline's own (" : " -> ":",
    " , " -> ", ", stray "##" removed)."""
    special = set(tokenizer.all_special_ids)
    kept = []
    for token_id in token_ids:
        if token_id in special:
            break
        kept.append(token_id)
    text = tokenizer.decode(kept, skip_special_tokens=True, clean_up_tokenization_spaces=True)
    return text.replace(" : ", ":").replace(" , ", ", ").replace("##", "")


def predicted_states(
    tokenizer, slots: Sequence[str], gate_logits: torch.Tensor, point_probs: torch.Tensor
) -> list[list[str]]:
    """`domain-slot-value` states of a batch; slots gated none or decoded as "none" are left out."""
    return states_from_ids(
        tokenizer, slots, gate_logits.argmax(dim=-1).tolist(), point_probs.argmax(dim=-1).tolist()
    )


def states_from_ids(
    tokenizer,
    slots: Sequence[str],
    gate_ids: Sequence[Sequence[int]],
    token_ids: Sequence[Sequence[Sequence[int]]],
) -> list[list[str]]:
    """States from the chosen gates (B, J) and value word pieces (B, J, T)."""
    states = []
    for example_gates, example_tokens in zip(gate_ids, token_ids, strict=True):
        state = []
        for slot, gate, value_ids in zip(slots, example_gates, example_tokens, strict=True):
            value = GATES[gate] if GATES[gate] != "ptr" else decode_value(tokenizer, value_ids)
            if value != NONE:
                state.append(f"{slot}-{value}")
        states.append(state)
    return states


def turn_dataset(examples: Sequence[TurnExample]) -> datasets.Dataset:
    """The Trainer's view of turn examples: the columns that `Trade.forward` takes."""
    return datasets.Dataset.from_dict(
        {
            "input_ids": [e.input_ids for e in examples],
            "target_ids": [e.target_ids for e in examples],
            "gate_ids": [e.gate_ids for e in examples],
        }
    )


@dataclass(frozen=True)
class TurnCollator:
    """A Trainer data collator: `collate` on rows of a `turn_dataset`."""

    pad_id: int

    def __call__(self, rows: Sequence[dict]) -> dict[str, torch.Tensor]:
        return collate([SimpleNamespace(**row) for row in rows], self.pad_id)


class TradeTrainer(OrderedEvalTrainer):
    """Evaluation decodes as at inference: greedy, at most `MAX_DECODE_STEPS` steps, no targets.

    Each evaluation batch gives the chosen gates (B, J) and value word pieces (B, J, T; the pad
    id after the step where decoding stopped) as its predictions and the gold gates as its
    labels (the Trainer computes metrics only with labels); no dev loss is computed.
    """

    @staticmethod
    def default_collator(tokenizer) -> TurnCollator:
        return TurnCollator(tokenizer.pad_token_id)

    def prediction_step(self, model, inputs, prediction_loss_only, ignore_keys=None):
        inputs = self._prepare_inputs(inputs)
        with torch.no_grad():
            output = model(inputs["input_ids"], inputs["attention_mask"])
        pieces = output["point_probs"].argmax(-1)  # (B, J, T): T < MAX_DECODE_STEPS if it stopped
        pieces = functional.pad(pieces, (0, MAX_DECODE_STEPS - pieces.size(-1)), value=model.pad_id)
        predictions = (output["gate_logits"].argmax(-1), pieces)
        return None, predictions, inputs["gate_ids"]


def metrics_function(tokenizer, slots: Sequence[str], gold: Sequence[Sequence[str]]):
    """A `TradeTrainer` `compute_metrics`: decoded states against the gold states of the dev
    turns (in `turn_examples` order), scored with the official JGA and slot F1."""

    def compute_metrics(prediction) -> dict[str, float]:
        gates, tokens = prediction.predictions
        states = states_from_ids(tokenizer, slots, gates.tolist(), tokens.tolist())
        return {
            "joint_goal_accuracy": joint_goal_accuracy(gold, states),
            "slot_f1": slot_f1(gold, states),
        }

    return compute_metrics
