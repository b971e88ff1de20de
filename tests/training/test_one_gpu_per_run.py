"""One GPU per run, whatever starts it. A fresh interpreter is shown four GPUs: torch's CUDA
calls are replaced by stand-ins that count CUDA_VISIBLE_DEVICES as the driver does (this machine
may have none). Without kluebook's pinning the Trainer would take all four (DataParallel); a run
set up by `start_run`, as every task notebook does (runner, Dask worker, papermill by hand,
Colab), leaves it one, its record says which, and a Trainer that would use several is refused."""

import json
import os
import subprocess
import sys

FAKE_GPUS = """
import os, torch
def _count():
    return len([d for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()])
torch.cuda.is_available = lambda: True
torch.cuda.is_initialized = lambda: False
torch.cuda.device_count = _count
torch.cuda.set_device = lambda device: None
torch.cuda.get_device_name = lambda index=0: "Stand-in GPU"
"""


def python(code: str, tmp_path) -> dict:
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "0,1,2,3", "KLUEBOOK_ROOT": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", FAKE_GPUS + code],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_fake_shows_four_gpus_to_an_unpinned_trainer(tmp_path):
    found = python(
        "import json\n"
        "from transformers import TrainingArguments\n"
        "args = TrainingArguments(output_dir='out', report_to='none')\n"
        "from kluebook.training.devices import check_trainer_devices\n"
        "from kluebook.common.errors import KluebookError\n"
        "try:\n"
        "    check_trainer_devices(args)\n"
        "    refused = ''\n"
        "except KluebookError as error:\n"
        "    refused = str(error)\n"
        "print(json.dumps({'n_gpu': args.n_gpu, 'refused': refused}))\n",
        tmp_path,
    )
    assert found["n_gpu"] == 4
    assert found["refused"].startswith("the Trainer would spread this run over 4 GPUs")


def test_a_notebook_run_hands_the_trainer_one_gpu_and_records_it(tmp_path):
    found = python(
        "import json\n"
        "from kluebook.notebook import steps\n"
        "from kluebook.training import devices\n"
        "from kluebook.training.fine_tuning import training_arguments\n"
        "namespace = dict(model='kluebook/tiny-roberta', profile='smoke', data_source='generated',"
        " data_dir='', seed=1, learning_rate=None, batch_size=None, epochs=None,"
        " warmup_ratio=None, max_length=None, train_limit=0, dev_limit=0, output_dir='out')\n"
        "run = steps.start_run('ynat', namespace)\n"
        "args = training_arguments(run.recipe, 'out', 1, 100)\n"
        "print(json.dumps({'n_gpu': args.n_gpu, 'devices': devices.run_devices()}))\n",
        tmp_path,
    )
    assert found["n_gpu"] == 1
    assert found["devices"] == [{"cuda_visible_device": "0", "name": "Stand-in GPU"}]
