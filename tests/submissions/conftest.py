"""A data folder of generated dev files (under reduced-copy names, so no official pin applies)
and perfect predictions of them."""

from pathlib import Path

import pytest

from kluebook.tasks import get_task, task_module


def write_generated(root: Path, names: tuple[str, ...]) -> dict[str, list[dict]]:
    """Generated dev files of `names` in `root` under their reduced-copy names; each task's
    gold records as read back."""
    gold = {}
    for name in names:
        task = get_task(name)
        records = task_module(task).generate(seed=3, **task.smoke_data)["dev"]
        path = root / task.files["dev"].replace(".json", ".partial.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        task_module(task).write_official(records, path)
        gold[name] = task_module(task).read_official(path)
    return gold


@pytest.fixture(scope="session")
def generated_dev(tmp_path_factory) -> tuple[Path, dict[str, list[dict]]]:
    """A data folder with generated YNAT, NLI and STS dev files under their reduced-copy
    names, and each task's gold records."""
    root = tmp_path_factory.mktemp("data")
    return root, write_generated(root, ("ynat", "nli", "sts"))


@pytest.fixture(scope="session")
def generated_structured_dev(tmp_path_factory) -> tuple[Path, dict[str, list[dict]]]:
    """The same for RE, MRC and WoS (whose real dev files are not all at hand)."""
    root = tmp_path_factory.mktemp("data")
    return root, write_generated(root, ("re", "mrc", "wos"))


@pytest.fixture
def perfect(generated_dev):
    """Perfect predictions of each generated task."""
    _, gold = generated_dev
    return {
        name: task_module(get_task(name)).gold_predictions(records, {})
        for name, records in gold.items()
    }
