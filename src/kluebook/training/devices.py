"""One GPU per run, whatever starts it: the GPUs a machine shows, the one a run keeps, and what
its record says about them.

The Hugging Face Trainer spreads a run over every GPU it sees (DataParallel), which multiplies
the recipe's batch by the GPU count while the official step count assumes one. So a run keeps
the first GPU it is shown (`CUDA_VISIBLE_DEVICES`, read when CUDA starts), whether the local
executor, a Dask worker, papermill by hand or Colab started it; `fine_tune` refuses a Trainer
that would use more than one.
"""

import os
import shutil
import subprocess

from kluebook.common.errors import KluebookError

VARIABLE = "CUDA_VISIBLE_DEVICES"


def visible_gpus() -> list[str]:
    """This machine's GPUs, as CUDA_VISIBLE_DEVICES entries: the variable's own list when it is
    set, else what `nvidia-smi -L` lists. Found without importing torch."""
    if VARIABLE in os.environ:
        return [d.strip() for d in os.environ[VARIABLE].split(",") if d.strip()]
    smi = shutil.which("nvidia-smi")
    if not smi:
        return []
    try:
        listing = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [str(i) for i, line in enumerate(listing.splitlines()) if line.startswith("GPU ")]


def keep_one_gpu() -> None:
    """Show this process only the first of its GPUs, before CUDA starts (a no-op with one or
    none). A process whose CUDA already started on several GPUs cannot be narrowed: refused."""
    import torch  # lazy: torch takes seconds to import, and most commands never need it

    if torch.cuda.is_initialized():
        if torch.cuda.device_count() > 1:
            raise KluebookError(
                f"CUDA already started on {torch.cuda.device_count()} GPUs in this kernel: "
                "restart it, or set CUDA_VISIBLE_DEVICES to one GPU before it starts"
            )
        return
    gpus = visible_gpus() if VARIABLE in os.environ else None
    if gpus is None:
        count = torch.cuda.device_count()  # NVML's count; not cached before CUDA starts
        gpus = [str(i) for i in range(count)]
    if len(gpus) > 1:
        os.environ[VARIABLE] = gpus[0]


def check_trainer_devices(args) -> None:
    """Refuse TrainingArguments under which the Trainer would use several GPUs."""
    if args.n_gpu > 1:
        raise KluebookError(
            f"the Trainer would spread this run over {args.n_gpu} GPUs (DataParallel), changing "
            "the recipe's batch: show the run one GPU (CUDA_VISIBLE_DEVICES)"
        )


def run_devices() -> list[dict]:
    """The GPUs a run used, for its record (none on a CPU): each one's CUDA_VISIBLE_DEVICES
    entry, as the machine numbers it, and its name."""
    import torch  # lazy: torch takes seconds to import, and most commands never need it

    if not torch.cuda.is_available():
        return []
    shown = visible_gpus() or [str(i) for i in range(torch.cuda.device_count())]
    return [
        {"cuda_visible_device": shown[i], "name": torch.cuda.get_device_name(i)}
        for i in range(torch.cuda.device_count())
    ]
