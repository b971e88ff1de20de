"""Executors without running a notebook: options, slots, kernels and one-line errors."""

import json

import pytest

from kluebook.common.errors import KluebookError
from kluebook.running import cluster_executors, executors, kernels, run_plan, run_spec, worker
from kluebook.training.tiny_model import TINY_CAUSAL_LM, TINY_MODEL


def test_jobs_split_the_threads_and_give_each_run_its_own_gpu():
    local = executors.LocalExecutor(jobs=2, threads=3, gpus=["0", "1"])
    assert local.environments == [
        {"OMP_NUM_THREADS": "3", "MKL_NUM_THREADS": "3", "CUDA_VISIBLE_DEVICES": "0"},
        {"OMP_NUM_THREADS": "3", "MKL_NUM_THREADS": "3", "CUDA_VISIBLE_DEVICES": "1"},
    ]


def test_a_run_gets_the_same_threads_at_every_jobs_level(monkeypatch):
    for name in kernels.THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    one = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    assert executors.LocalExecutor(jobs=1, gpus=[]).environments == [one]
    assert executors.LocalExecutor(jobs=2, gpus=[]).environments == [one, one]
    monkeypatch.setenv("OMP_NUM_THREADS", "4")  # the user's own choice is inherited as it is
    assert executors.LocalExecutor(jobs=2, gpus=[]).environments == [{}, {}]


def test_more_jobs_than_gpus_is_refused_for_real_checkpoints_only():
    local = executors.LocalExecutor(jobs=3, gpus=["0"])
    local.check({TINY_MODEL, TINY_CAUSAL_LM})  # the stand-ins, the prompted one too, share
    with pytest.raises(KluebookError, match="each run of a real checkpoint needs its own GPU"):
        local.check({TINY_MODEL, "klue/roberta-base"})
    with pytest.raises(KluebookError, match="--jobs must be at least 1"):
        executors.LocalExecutor(jobs=0)


def test_resources_are_parsed_or_refused_in_one_line():
    assert cluster_executors.parse_resources("GPU=1, MEM=2.5") == {"GPU": 1.0, "MEM": 2.5}
    assert cluster_executors.parse_resources("") == {}
    for bad in ("GPU", "GPU=one", "=1"):
        with pytest.raises(KluebookError, match="--resources expects NAME=AMOUNT"):
            cluster_executors.parse_resources(bad)


def test_an_unreachable_scheduler_is_a_one_line_error():
    pytest.importorskip("distributed")
    with pytest.raises(
        KluebookError, match=r"cannot reach the Dask scheduler tcp://127\.0\.0\.1:9"
    ):
        cluster_executors.DaskExecutor("tcp://127.0.0.1:9", connect_timeout=2)


def test_each_kernel_environment_has_its_own_kernel_spec(tmp_path, monkeypatch):
    monkeypatch.setattr(kernels, "CACHE", tmp_path)
    one = kernels.kernel_manager({"OMP_NUM_THREADS": "1"})
    two = kernels.kernel_manager({"OMP_NUM_THREADS": "2"})
    assert one.kernel_name != two.kernel_name
    spec = json.loads((tmp_path / "jupyter/kernels" / one.kernel_name / "kernel.json").read_text())
    assert spec["env"]["OMP_NUM_THREADS"] == "1" and spec["env"]["TQDM_DISABLE"] == "1"
    assert kernels.kernel_name({}) == "kluebook"


def test_a_worker_runs_on_the_first_of_its_gpus(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3,0,1")  # as dask-cuda sets it for worker 2
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    assert kernels.worker_kernel_environment() == {"CUDA_VISIBLE_DEVICES": "2"}


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

    def start(outcomes, started=None):
        outcomes = list(outcomes)

        def execute_notebook(*args, km, **kwargs):
            seen["given"].append(km)
            outcome = outcomes.pop(0)
            if outcome is not None:
                raise outcome

        monkeypatch.setattr(papermill, "execute_notebook", execute_notebook)
        monkeypatch.setattr(kernels, "kernel_manager", lambda env: object())
        monkeypatch.setattr(kernels, "kill", lambda manager: seen["killed"].append(manager))
        request = worker.RunRequest(
            task="ynat", name="n", parameters={}, notebook="", code_hash="", data_checksum=""
        )
        worker._execute_notebook(
            tmp_path / "in", tmp_path / "out", request, {}, tmp_path, seen["log"], started
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


def test_a_kernel_started_ahead_is_the_runs_first_and_is_replaced_if_it_died(kernel_starts):
    ahead = object()
    seen = kernel_starts([RuntimeError(worker.KERNEL_DIED_AT_START), None], started=ahead)
    assert seen["given"][0] is ahead and seen["given"][1] is not ahead
    assert seen["killed"] == seen["given"]


def test_a_kernel_that_keeps_dying_or_fails_otherwise_fails_the_run(kernel_starts):
    died = RuntimeError(worker.KERNEL_DIED_AT_START)
    with pytest.raises(RuntimeError, match="before replying"):
        kernel_starts([died] * worker.KERNEL_STARTS)
    with pytest.raises(RuntimeError, match="CUDA out of memory"):
        kernel_starts([RuntimeError("CUDA out of memory"), None])  # a cell's error: no retry


@pytest.fixture
def ahead(monkeypatch):
    """`LocalExecutor` with kernel starts and runs replaced by fakes: returns what was started
    (slot environment, in order), what each run got, and what was discarded."""
    seen = {"started": [], "got": [], "discarded": []}

    def start_kernel(env):
        slot = env["CUDA_VISIBLE_DEVICES"]
        seen["started"].append(slot)
        if slot == "broken":
            raise RuntimeError("no kernel")
        return kernels.StartedKernel(manager=f"{slot}#{seen['started'].count(slot)}", folder=None)

    def produce(request, kernel=None):
        seen["got"].append((request.kernel_env["CUDA_VISIBLE_DEVICES"], kernel))
        return worker.RunProducts(started=0.0, host="")

    monkeypatch.setattr(executors, "start_kernel", start_kernel)
    monkeypatch.setattr(executors, "produce", produce)
    monkeypatch.setattr(executors, "discard", lambda kernel: seen["discarded"].append(kernel))
    return seen


REQUEST = worker.RunRequest(
    task="ynat", name="n", parameters={}, notebook="", code_hash="", data_checksum=""
)


def test_kernels_start_ahead_one_per_slot_then_each_while_a_run_executes(ahead):
    local = executors.LocalExecutor(jobs=2, threads=1, gpus=["0", "1"])
    local.start_kernels(3)
    local.produce(REQUEST)  # slot 0 takes its first kernel, and starts its second
    local.produce(REQUEST)  # slot 1 takes its first; three started: no more
    local.produce(REQUEST)  # slot 0 again: its second
    local.produce(REQUEST)  # a fourth run (three were announced) starts its own
    local.close()
    assert sorted(ahead["started"]) == ["0", "0", "1"]
    assert [(slot, k.manager if k else None) for slot, k in ahead["got"]] == [
        ("0", "0#1"),
        ("1", "1#1"),
        ("0", "0#2"),
        ("1", None),
    ]
    assert ahead["discarded"] == []


def test_kernels_no_run_took_are_stopped_and_a_failed_start_leaves_the_run_its_own(ahead):
    local = executors.LocalExecutor(jobs=2, threads=1, gpus=["0", "broken"])
    local.start_kernels(5)
    local.produce(REQUEST)  # slot 0: its first kernel, and its second started for its next run
    local.produce(REQUEST)  # slot 1: its start failed, the run starts its own
    local.close()  # slot 0's second kernel is stopped, not left running
    assert ahead["got"][0][1].manager == "0#1" and ahead["got"][1] == ("broken", None)
    assert [k.manager for k in ahead["discarded"]] == ["0#2"]
    assert sorted(ahead["started"]) == ["0", "0", "broken", "broken"]
    local.close()  # a second close is harmless


def test_a_kernel_started_ahead_runs_in_its_folder_as_one_papermill_starts(tmp_path):
    import io

    import nbformat

    code = "import json, os, sys\nprint(json.dumps([os.getcwd(), sys.argv[1:], "
    code += "sorted(os.environ)]))"
    source = tmp_path / "probe.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), source)
    env = kernels.thread_environment(1)
    seen = []
    for started in (kernels.start_kernel(env), None):
        folder = started.folder if started else tmp_path / "own"
        folder.mkdir(exist_ok=True)
        executed = tmp_path / "executed.ipynb"
        log = io.StringIO()
        try:
            worker._execute_notebook(
                source, executed, REQUEST, env, folder, log, started and started.manager
            )
        finally:
            if started:
                kernels.discard(started)  # its folder is a scratch folder outside tmp_path
        cwd, argv, names = json.loads(nbformat.read(executed, 4).cells[0].outputs[0]["text"])
        assert cwd == str(folder)
        connection = [a for a in argv if a.endswith(".json")]
        seen.append(([a for a in argv if a not in connection], names))
    assert seen[0] == seen[1]
