"""Shared fixtures: the real KLUE files in ../shared/klue-data, skipped when absent."""

from pathlib import Path

import pytest

from kluebook.paths import SHARED_KLUE_DATA


@pytest.fixture(scope="session")
def klue_data() -> Path:
    """The folder of real KLUE v1.1 files; tests using it skip with a reason when it is absent."""
    if not SHARED_KLUE_DATA.is_dir():
        pytest.skip(f"real KLUE data not found at {SHARED_KLUE_DATA} (../shared/klue-data)")
    return SHARED_KLUE_DATA
