"""A ranked prompted run's calibration and its corrections, in words, read off its record: the
run's own ECE and Brier score, then each correction's official metrics, ECE and Brier score,
labelled as a correction beside the uncorrected numbers (which stay the run's)."""

from kluebook.recording.records import RunRecord
from kluebook.tasks import Task

CORRECTIONS = {"contextual": "contextual calibration", "pmi": "PMI scoring"}


def calibration_text(task: Task, record: RunRecord) -> str:
    """ECE and Brier score of the run, then each correction's numbers ("" for a fine-tuned run,
    one that answered by generation, or one recorded before calibration was)."""
    prompted = record.outcome.prompted if record.outcome else None
    if prompted is None or prompted.calibration is None:
        return ""
    own = prompted.calibration
    text = (
        f"ECE {own.ece:.3f} over {len(own.bins)} equal-width confidence bins, "
        f"Brier {own.brier:.3f} (uncorrected: the run's scores)"
    )
    for name, found in (prompted.corrections or {}).items():
        scores = ", ".join(
            f"{m.label} {found.metrics[m.key]:.2f}"
            for m in task.metrics
            if found.metrics.get(m.key) is not None
        )
        text += (
            f"; corrected by {CORRECTIONS.get(name, name)}, not the run's scores: {scores}, "
            f"ECE {found.calibration.ece:.3f}, Brier {found.calibration.brier:.3f}"
        )
    return text
