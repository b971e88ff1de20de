"""Machine reading comprehension (MRC): the task's files, metric, smoke data and scoring.

Its card is README.md here. It offers the task interface of `kluebook.tasks.TaskModule`, from
data.py and synthetic.py.
"""

from .data import (
    from_hub,
    gold_keys,
    gold_predictions,
    prediction_key,
    read_official,
    score,
    write_official,
)
from .synthetic import generate
