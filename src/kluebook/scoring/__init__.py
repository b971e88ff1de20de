"""Scoring: the official metrics of a predictions file (`predictions`), bootstrap intervals and
paired comparisons (`bootstrap`, from per-unit statistics: `metric_forms`), and what the tasks'
scoring functions share (`predicted_labels`, `switches`)."""
