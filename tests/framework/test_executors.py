"""Executors without running a notebook: options, slots, kernels and one-line errors."""

import json

import pytest

from kluebook import executors, run_plan, run_spec, worker
from kluebook.errors import KluebookError
from kluebook.tiny_model import TINY_CAUSAL_LM, TINY_MODEL


def test_jobs_split_the_threads_and_give_each_run_its_own_gpu():
    local = executors.LocalExecutor(jobs=2, threads=3, gpus=["0", "1"])
    slots = [local.slots.get() for _ in range(2)]
    assert slots == [
        {"OMP_NUM_THREADS": "3", "MKL_NUM_THREADS": "3", "CUDA_VISIBLE_DEVICES": "0"},
        {"OMP_NUM_THREADS": "3", "MKL_NUM_THREADS": "3", "CUDA_VISIBLE_DEVICES": "1"},
    ]


def test_a_run_gets_the_same_threads_at_every_jobs_level(monkeypatch):
    for name in worker.THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    one = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    assert executors.LocalExecutor(jobs=1, gpus=[]).slots.get() == one
    assert executors.LocalExecutor(jobs=2, gpus=[]).slots.get() == one
    monkeypatch.setenv("OMP_NUM_THREADS", "4")  # the user's own choice is inherited as it is
    assert executors.LocalExecutor(jobs=2, gpus=[]).slots.get() == {}


def test_more_jobs_than_gpus_is_refused_for_real_checkpoints_only():
    local = executors.LocalExecutor(jobs=3, gpus=["0"])
    local.check({TINY_MODEL, TINY_CAUSAL_LM})  # the stand-ins, the prompted one too, share
    with pytest.raises(KluebookError, match="each run of a real checkpoint needs its own GPU"):
        local.check({TINY_MODEL, "klue/roberta-base"})
    with pytest.raises(KluebookError, match="--jobs must be at least 1"):
        executors.LocalExecutor(jobs=0)


def test_resources_are_parsed_or_refused_in_one_line():
    assert executors.parse_resources("GPU=1, MEM=2.5") == {"GPU": 1.0, "MEM": 2.5}
    assert executors.parse_resources("") == {}
    for bad in ("GPU", "GPU=one", "=1"):
        with pytest.raises(KluebookError, match="--resources expects NAME=AMOUNT"):
            executors.parse_resources(bad)


def test_an_unreachable_scheduler_is_a_one_line_error():
    pytest.importorskip("distributed")
    with pytest.raises(
        KluebookError, match=r"cannot reach the Dask scheduler tcp://127\.0\.0\.1:9"
    ):
        executors.DaskExecutor("tcp://127.0.0.1:9", connect_timeout=2)


def test_each_kernel_environment_has_its_own_kernel_spec(tmp_path, monkeypatch):
    monkeypatch.setattr(worker, "CACHE", tmp_path)
    one = worker.kernel_manager({"OMP_NUM_THREADS": "1"})
    two = worker.kernel_manager({"OMP_NUM_THREADS": "2"})
    assert one.kernel_name != two.kernel_name
    spec = json.loads((tmp_path / "jupyter/kernels" / one.kernel_name / "kernel.json").read_text())
    assert spec["env"]["OMP_NUM_THREADS"] == "1" and spec["env"]["TQDM_DISABLE"] == "1"
    assert worker.kernel_name({}) == "kluebook"


def test_a_worker_runs_on_the_first_of_its_gpus(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3,0,1")  # as dask-cuda sets it for worker 2
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    assert worker.worker_kernel_environment() == {"CUDA_VISIBLE_DEVICES": "2"}


def test_a_request_from_other_code_is_refused_before_it_runs():
    spec = run_plan.plan("smoke", tasks=["ynat"], seeds=[1])[0]
    request, _ = run_spec.run_request(spec)
    products = worker.produce(
        worker.RunRequest(**{**request.__dict__, "code_hash": "not this code"})
    )
    assert not products.succeeded
    assert products.error.startswith("EnvironmentMismatch: the kluebook code on ")


@pytest.fixture
def kernel_starts(monkeypatch, tmp_path):
    """papermill replaced by `outcomes` in turn (an exception to raise, or None for a run that
    went through); returns the kernel managers each call got and the ones killed."""
    import io

    import papermill

    seen = {"given": [], "killed": [], "log": io.StringIO()}

    def start(outcomes):
        outcomes = list(outcomes)

        def execute_notebook(*args, km, **kwargs):
            seen["given"].append(km)
            outcome = outcomes.pop(0)
            if outcome is not None:
                raise outcome

        monkeypatch.setattr(papermill, "execute_notebook", execute_notebook)
        monkeypatch.setattr(worker, "kernel_manager", lambda env: object())
        monkeypatch.setattr(worker, "_kill", lambda manager: seen["killed"].append(manager))
        request = worker.RunRequest(
            task="ynat", name="n", parameters={}, notebook="", code_hash="", data_checksum=""
        )
        worker._execute_notebook(
            tmp_path / "in", tmp_path / "out", request, {}, tmp_path, seen["log"]
        )
        return seen

    return start


def test_a_kernel_that_dies_while_starting_is_started_again(kernel_starts):
    died = RuntimeError(worker.KERNEL_DIED_AT_START)
    seen = kernel_starts([died, None])
    assert len(seen["given"]) == 2 and seen["given"][0] is not seen["given"][1]  # a new kernel
    assert seen["killed"] == seen["given"]  # and neither is left running
    assert seen["log"].getvalue() == (
        f"kluebook: the kernel died while starting ({worker.KERNEL_DIED_AT_START}); again\n"
    )


def test_a_kernel_that_keeps_dying_or_fails_otherwise_fails_the_run(kernel_starts):
    died = RuntimeError(worker.KERNEL_DIED_AT_START)
    with pytest.raises(RuntimeError, match="before replying"):
        kernel_starts([died] * worker.KERNEL_STARTS)
    with pytest.raises(RuntimeError, match="CUDA out of memory"):
        kernel_starts([RuntimeError("CUDA out of memory"), None])  # a cell's error: no retry
