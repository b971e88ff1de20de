"""Early stopping stops where KLUE-baseline's did.

`run_klue.py` adds `EarlyStopping(monitor=metric, patience=args.patience, mode="max")` (Lightning
1.1, `min_delta` 0): each validation either beats the best so far strictly and resets the count,
or adds one; at `patience` training stops. `run_all.sh` passes `--patience` (10,000 or more, in
effect off) for YNAT, RE, DP, MRC and WoS, and leaves the default 5 for STS, NLI and NER. The
reference is a real Lightning Trainer fed a scripted metric; kluebook's is `fine_tune` with the
same script as its dev metric.
"""

import math

import pytest
import torch
from conftest import dummy_fine_tune, fit_with_lightning

from kluebook.tasks import get_task
from kluebook.training.recipes import resolve_recipe

lightning = pytest.importorskip("lightning")

NAN = math.nan
SCRIPTS = {
    # A gain at the fourth check resets the count; five checks without one then stop it.
    "reset then stop": [50, 60, 60, 61, 55, 58, 61, 60, 59, 70, 80, 90],
    # Equal to the best is no gain (strict improvement).
    "ties do not count": [50, 50, 50, 50, 50, 50, 90, 90, 90, 90, 90, 90],
    # A NaN never beats the best (Lightning 1.1 compares, it does not stop on NaN).
    "nan is no gain": [NAN, 10, NAN, NAN, 9, 9, 9, 11, 11, 11, 11, 11],
    # A peak at the first check, five checks without a gain: stops in the second epoch.
    "early peak": [3, 2, 2, 2, 2, 2, 9, 9, 9, 9, 9, 9],
    # Always improving: never stops.
    "always better": list(range(12)),
}


def lightning_checks(script: list[float], patience: int = 5) -> int:
    """How many validations a Lightning run with EarlyStopping(patience) makes on `script`
    (3 epochs of 8 batches, 4 checks an epoch: 12 at most)."""
    values = iter(script)

    class Scripted(lightning.LightningModule):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.zeros(1))
            self.checks = 0

        def training_step(self, batch, batch_idx):
            return (self.weight * batch[0]).sum()

        def validation_step(self, batch, batch_idx):
            return None

        def on_validation_epoch_end(self):
            if not self.trainer.sanity_checking:
                self.checks += 1
                self.log("score", float(next(values)))

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.0)

    module = Scripted()
    stopping = lightning.pytorch.callbacks.EarlyStopping(
        monitor="score", patience=patience, mode="max", min_delta=0.0, check_finite=False
    )
    fit_with_lightning(
        module,
        8,
        max_epochs=3,
        # Lightning 1.1 (min_epochs=1) leaves the epoch as soon as a check says stop and
        # counts the first epoch's minimum as met: Lightning 2 does so without a minimum.
        min_epochs=None,
        val_check_interval=0.25,
        callbacks=[stopping],
    )
    return module.checks


@pytest.mark.parametrize("name", SCRIPTS)
def test_fine_tune_stops_at_the_same_evaluation_as_lightning(tmp_path, name):
    script = SCRIPTS[name]
    _, scored_at = dummy_fine_tune(
        tmp_path, 8, {"epochs": 3, "early_stopping_patience": 5}, scores=script
    )
    assert len(scored_at) == lightning_checks(script)


def test_the_scripts_stop_where_the_rule_says():
    assert [lightning_checks(s) for s in SCRIPTS.values()] == [9, 6, 7, 6, 12]


def test_a_patience_of_one_stops_at_the_first_check_without_a_gain(tmp_path):
    script = [5, 6, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    _, scored_at = dummy_fine_tune(
        tmp_path, 8, {"epochs": 3, "early_stopping_patience": 1}, scores=script
    )
    assert len(scored_at) == lightning_checks(script, patience=1) == 3


def test_the_best_checkpoint_is_the_first_of_the_best_values(tmp_path):
    """Lightning's ModelCheckpoint and the HF Trainer both keep the first of equal best values
    (strict improvement), and neither picks a NaN."""
    script = [NAN, 10, 12, 12, 11, 12, 9, 9, 9, 9, 9, 9]
    result, scored_at = dummy_fine_tune(tmp_path, 8, {"epochs": 3}, scores=script)
    assert result.best["step"] == scored_at[2]
    assert result.trainer.state.best_global_step == scored_at[2]


# run_all.sh: --patience 100000 or 10000 (off) for YNAT, RE, DP, MRC, WoS; the default 5 else.
PAPER_PATIENCE = {
    "ynat": None,
    "sts": 5,
    "nli": 5,
    "ner": 5,
    "re": None,
    "dp": None,
    "mrc": None,
    "wos": None,
}


@pytest.mark.parametrize(("task", "patience"), list(PAPER_PATIENCE.items()))
def test_the_paper_profile_stops_early_where_run_all_sh_did(task, patience):
    for model in ("klue/roberta-base", "klue/roberta-large"):
        assert resolve_recipe(get_task(task), model, "paper", {}).early_stopping_patience == (
            patience
        )
        assert resolve_recipe(get_task(task), model, "smoke", {}).early_stopping_patience is None
