"""The KLUE-baseline dependency parser, its Trainer and its decoding (see README.md here; its
input features: `features`).

A pretrained encoder reads `[CLS] eojeol_1 ... eojeol_n [SEP]`; each eojeol is represented by
the hidden states of its first and last subword (the root by `[CLS]` twice) joined with an
embedding of its last morpheme's POS tag. A BiLSTM encodes root + eojeols, an LSTM decoder reads
the eojeols, a biaffine scorer rates every (dependent, head) pair and a bilinear scorer the 38
labels of each eojeol with its head; heads and labels are decoded by independent argmax.

Two behaviours of the baseline are switches of the recipe (`apply_recipe`, book/deviations.md):
- `dp_padded_head_score`: at evaluation the baseline multiplies the arc scores by the mask, so a
  padded head candidate scores 0 and wins whenever every real candidate scores below 0
  ("zero", the default); "masked" gives padded candidates the training mask (-1e8) instead.
- `dp_scorer_init`: the baseline initialises the arc scorer's bilinear weight as a
  (1, dependent, head) tensor with Xavier (a far smaller range than Xavier on the 2-D matrix)
  and every weight of the label scorer with Xavier ("official", the default); "kluebook-0.1" is
  what kluebook did before: 2-D Xavier for the arc weight, PyTorch's defaults for the label
  scorer.
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from kluebook.common.errors import KluebookError
from kluebook.training.fine_tuning import OrderedEvalTrainer

from .data import DEPRELS, POS_TAGS
from .features import IGNORE_INDEX, POS_PAD_ID, ParserCollator
from .metric import dp_scores

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

MASKED_SCORE = -1e8  # the baseline's training score for padded head candidates
PADDED_HEAD_SCORES = ("zero", "masked")
SCORER_INITS = ("official", "kluebook-0.1")
# Head sizes for the offline tiny encoder (hidden size 128): the official ones (LSTM 768, arcs
# 512, labels 256, POS 256) would make the head ~100 times larger than the encoder, and a smoke
# run minutes long on a CPU.
TINY_ENCODER_SIZES = {"lstm_size": 128, "arc_size": 128, "label_size": 64, "pos_size": 64}


class Biaffine(nn.Module):
    """score(i, j) = d_i U h_j + w_d . d_i + w_h . h_j + b (dependents d, head candidates h)."""

    def __init__(self, dependent_size: int, head_size: int, init: str = "official"):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(dependent_size, head_size))
        self.dependent_weight = nn.Parameter(torch.empty(1, dependent_size))
        self.head_weight = nn.Parameter(torch.empty(1, head_size))
        self.bias = nn.Parameter(torch.zeros(()))
        self.reset_parameters(init)

    def reset_parameters(self, init: str = "official") -> None:
        """Xavier-uniform weights and a zero bias. "official": the bilinear weight as the
        baseline's (1, dependent, head) tensor, whose fans are (dependent x head, head);
        "kluebook-0.1": as a (dependent, head) matrix."""
        if init not in SCORER_INITS:
            raise KluebookError(f"unknown DP scorer initialisation {init!r}")
        with torch.no_grad():
            weight = self.weight[None] if init == "official" else self.weight
            nn.init.xavier_uniform_(weight)
            nn.init.xavier_uniform_(self.dependent_weight)
            nn.init.xavier_uniform_(self.head_weight)
            nn.init.zeros_(self.bias)

    def forward(self, dependents: torch.Tensor, heads: torch.Tensor) -> torch.Tensor:
        bilinear = dependents @ self.weight @ heads.transpose(1, 2)
        dependent_term = dependents @ self.dependent_weight.T
        head_term = (heads @ self.head_weight.T).transpose(1, 2)
        return bilinear + dependent_term + head_term + self.bias


class LabelScorer(nn.Module):
    """score(i, l) = d_i U_l h_i + W_d d_i + W_h h_i + b_l for each eojeol and its head."""

    def __init__(self, size: int, num_labels: int, init: str = "official"):
        super().__init__()
        self.bilinear = nn.Bilinear(size, size, num_labels)
        self.dependent = nn.Linear(size, num_labels, bias=False)
        self.head = nn.Linear(size, num_labels, bias=False)
        self.reset_parameters(init)

    def reset_parameters(self, init: str = "official") -> None:
        """ "official": Xavier-uniform weights and a zero bias (the baseline's BiLinear);
        "kluebook-0.1": PyTorch's default initialisation of each layer."""
        if init not in SCORER_INITS:
            raise KluebookError(f"unknown DP scorer initialisation {init!r}")
        if init == "kluebook-0.1":
            for layer in (self.bilinear, self.dependent, self.head):
                layer.reset_parameters()
            return
        with torch.no_grad():
            for weight in (self.bilinear.weight, self.dependent.weight, self.head.weight):
                nn.init.xavier_uniform_(weight)
            nn.init.zeros_(self.bilinear.bias)

    def forward(self, dependents: torch.Tensor, heads: torch.Tensor) -> torch.Tensor:
        return self.bilinear(dependents, heads) + self.dependent(dependents) + self.head(heads)


def _drop_rows(x: torch.Tensor, p: float, training: bool, dim: int) -> torch.Tensor:
    """Dropout2d as the baseline applies it: whole positions (dim 1) or channels (dim 2)."""
    shape = [x.size(0), 1, 1]
    shape[dim] = x.size(dim)
    return x * F.dropout(x.new_ones(shape), p, training)


@dataclass
class ParserOutput:
    arc_scores: torch.Tensor  # (batch, words, 1 + words): dependent x head candidate (0 = root)
    label_scores: torch.Tensor  # (batch, words, labels), for the gold head if given, else argmax
    loss: torch.Tensor | None = None


class DependencyParser(nn.Module):
    """Pretrained encoder + POS embedding + BiLSTM/LSTM + biaffine arcs + bilinear labels."""

    def __init__(
        self,
        encoder: nn.Module,
        lstm_size: int = 768,
        arc_size: int = 512,
        label_size: int = 256,
        pos_size: int = 256,
        dropout: float = 0.33,
        num_labels: int = len(DEPRELS),
        padded_head_score: str = "zero",
        scorer_init: str = "official",
    ):
        super().__init__()
        if padded_head_score not in PADDED_HEAD_SCORES:
            raise KluebookError(f"unknown padded head score {padded_head_score!r}")
        self.encoder = encoder
        self.dropout = dropout
        self.padded_head_score = padded_head_score
        self.scorer_init = scorer_init
        hidden_size = encoder.config.hidden_size
        self.pos_embedding = nn.Embedding(len(POS_TAGS) + 1, pos_size)
        self.word_lstm = nn.LSTM(
            2 * hidden_size + pos_size, lstm_size, batch_first=True, bidirectional=True
        )
        self.decoder_input = nn.Linear(2 * lstm_size, lstm_size)
        self.decoder_state = nn.Linear(2 * lstm_size, lstm_size)
        self.decoder_lstm = nn.LSTM(lstm_size, lstm_size, batch_first=True)
        self.arc_dependent = nn.Linear(lstm_size, arc_size)
        self.arc_head = nn.Linear(2 * lstm_size, arc_size)
        self.label_dependent = nn.Linear(lstm_size, label_size)
        self.label_head = nn.Linear(2 * lstm_size, label_size)
        self.arc_scorer = Biaffine(arc_size, arc_size, scorer_init)
        self.label_scorer = LabelScorer(label_size, num_labels, scorer_init)

    def apply_recipe(self, recipe) -> None:
        """Take the recipe's DP switches (called by `kluebook.training.fine_tuning.fine_tune`): the
        score of padded head candidates at evaluation, and the scorers' initialisation (drawn again
        only if it differs from the one the parser was built with). A recipe without them (one
        built by hand) leaves the parser as it was built."""
        switches = recipe.switches()
        padded_head_score = switches.get("dp_padded_head_score", self.padded_head_score)
        if padded_head_score not in PADDED_HEAD_SCORES:
            raise KluebookError(f"unknown padded head score {padded_head_score!r}")
        self.padded_head_score = padded_head_score
        scorer_init = switches.get("dp_scorer_init", self.scorer_init)
        if scorer_init != self.scorer_init:
            self.arc_scorer.reset_parameters(scorer_init)
            self.label_scorer.reset_parameters(scorer_init)
            self.scorer_init = scorer_init

    @classmethod
    def from_pretrained(cls, name_or_path: str, **sizes) -> "DependencyParser":
        """A parser over the pretrained encoder `name_or_path` (its LM head, if any, dropped)."""
        from transformers import AutoModel

        return cls(AutoModel.from_pretrained(name_or_path), **sizes)

    def _word_representations(self, input_ids, attention_mask, first_subword, last_subword):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        rows = torch.arange(hidden.size(0), device=hidden.device)[:, None]
        words = torch.cat([hidden[rows, first_subword], hidden[rows, last_subword]], dim=-1)
        root = hidden[:, :1].repeat(1, 1, 2)
        return torch.cat([root, words], dim=1)

    def _lstm(self, lstm: nn.LSTM, x: torch.Tensor, lengths: torch.Tensor, state=None):
        packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        output, (_, cell) = lstm(packed, state)
        output, _ = pad_packed_sequence(output, batch_first=True, total_length=x.size(1))
        return _drop_rows(output, self.dropout, self.training, dim=2), cell

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        first_subword: torch.Tensor,
        last_subword: torch.Tensor,
        pos_ids: torch.Tensor,
        word_mask: torch.Tensor,
        heads: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
    ) -> ParserOutput:
        """Arc and label scores; with gold `heads` and `labels`, also the loss."""
        words = self._word_representations(input_ids, attention_mask, first_subword, last_subword)
        pos = self.pos_embedding(F.pad(pos_ids, (1, 0), value=POS_PAD_ID))
        pos = _drop_rows(pos, self.dropout, self.training, dim=1)
        lengths = word_mask.sum(dim=1) + 1
        encoded, cell = self._lstm(self.word_lstm, torch.cat([words, pos], dim=-1), lengths)
        decoder_cell = self.decoder_state(torch.cat([cell[-2], cell[-1]], dim=-1))[None]
        decoder_input = F.elu(self.decoder_input(encoded[:, 1:]))
        state = (torch.tanh(decoder_cell), decoder_cell)
        decoded, _ = self._lstm(self.decoder_lstm, decoder_input, lengths - 1, state)

        arc_scores = self.arc_scorer(
            F.elu(self.arc_dependent(decoded)), F.elu(self.arc_head(encoded))
        )
        arc_scores = self._mask_arc_scores(arc_scores, word_mask, training=heads is not None)
        chosen = arc_scores.argmax(dim=-1) if heads is None else heads.clamp(min=0)
        rows = torch.arange(chosen.size(0), device=chosen.device)[:, None]
        label_heads = F.elu(self.label_head(encoded))[rows, chosen]
        label_scores = self.label_scorer(F.elu(self.label_dependent(decoded)), label_heads)

        loss = None
        if heads is not None and labels is not None:
            arc_loss = F.cross_entropy(arc_scores.flatten(0, 1), heads.flatten())
            label_loss = F.cross_entropy(label_scores.flatten(0, 1), labels.flatten())
            loss = arc_loss + label_loss
        return ParserOutput(arc_scores=arc_scores, label_scores=label_scores, loss=loss)

    def _mask_arc_scores(
        self, arc_scores: torch.Tensor, word_mask: torch.Tensor, training: bool
    ) -> torch.Tensor:
        """Padded head candidates get -1e8 in training (the loss); at evaluation, with the
        baseline's "zero", every score is multiplied by the dependent and candidate masks."""
        candidates = F.pad(word_mask, (1, 0), value=True)
        if training or self.padded_head_score == "masked":
            return arc_scores.masked_fill(~candidates[:, None, :], MASKED_SCORE)
        mask = word_mask[:, :, None] & candidates[:, None, :]
        return arc_scores * mask.to(arc_scores.dtype)

    @torch.no_grad()
    def predict(self, batch: dict[str, torch.Tensor]) -> list[tuple[list[int], list[str]]]:
        """(heads, deprels) of each sentence of a `features.collate` batch, by independent argmax.

        Call it in eval mode (`parser.eval()`), or dropout stays on.
        """
        inputs = {k: v for k, v in batch.items() if k not in ("heads", "labels")}
        output = self(**inputs)
        heads = output.arc_scores.argmax(dim=-1).tolist()
        labels = output.label_scores.argmax(dim=-1).tolist()
        sizes = batch["word_mask"].sum(dim=1).tolist()
        return [
            (heads[row][:size], [DEPRELS[label] for label in labels[row][:size]])
            for row, size in enumerate(sizes)
        ]


class ParserTrainer(OrderedEvalTrainer):
    """The Trainer for a DependencyParser, evaluated as the baseline evaluates it.

    Training uses the parser's own loss (gold heads pick the label scorer's heads). Evaluation
    runs the parser without gold: labels are scored for the argmax head. Its `predictions` are
    (heads, label ids) and its `label_ids` (gold heads, gold label ids), one row per sentence,
    -100 past the sentence's last eojeol. No evaluation loss is reported.
    """

    @staticmethod
    def default_collator(tokenizer: "PreTrainedTokenizerBase") -> "ParserCollator":
        return ParserCollator(tokenizer.pad_token_id)

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        output = model(**inputs)
        return (output.loss, output) if return_outputs else output.loss

    def prediction_step(self, model, inputs, prediction_loss_only, ignore_keys=None):
        inputs = self._prepare_inputs(inputs)
        features = {k: v for k, v in inputs.items() if k not in ("heads", "labels")}
        with torch.no_grad():
            output = model(**features)
        if prediction_loss_only:
            return None, None, None
        padding = ~inputs["word_mask"]
        heads = output.arc_scores.argmax(dim=-1).masked_fill(padding, IGNORE_INDEX)
        labels = output.label_scores.argmax(dim=-1).masked_fill(padding, IGNORE_INDEX)
        return None, (heads, labels), (inputs["heads"], inputs["labels"])


def decode_predictions(prediction) -> list[tuple[list[int], list[str]]]:
    """(heads, deprels) of each sentence from a ParserTrainer evaluation or `predict` output."""
    heads, labels = prediction.predictions
    gold_heads = prediction.label_ids[0]
    sentences = []
    for row_heads, row_labels, row_gold in zip(heads, labels, gold_heads, strict=True):
        size = int((row_gold != IGNORE_INDEX).sum())
        sentences.append(
            ([int(h) for h in row_heads[:size]], [DEPRELS[i] for i in row_labels[:size]])
        )
    return sentences


def parser_metrics(prediction) -> dict[str, float]:
    """The official UAS/LAS (macro F1) and attachment accuracies of a ParserTrainer evaluation."""
    heads, labels = prediction.predictions
    gold_heads, gold_labels = prediction.label_ids
    real = gold_heads != IGNORE_INDEX
    return dp_scores(
        gold_heads[real].tolist(),
        heads[real].tolist(),
        [DEPRELS[i] for i in gold_labels[real]],
        [DEPRELS[i] for i in labels[real]],
    )
