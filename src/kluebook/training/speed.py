"""Switches for speed on GPUs, each a recipe field and a named deviation from the official recipe.

The official KLUE recipe trains in fp32 with PyTorch's AdamW and the attention of its time
(softmax(QK^T)V in eager PyTorch). Each switch trades exactness against that recipe for speed:

- `tf32`: fp32 matrix products on the GPU's TF32 tensor cores (10-bit mantissa inputs).
- `bf16`: bf16 autocast of the forward and backward passes (weights and optimiser stay fp32).
- `fp16`: fp16 autocast with loss scaling, for GPUs without bf16 (V100, T4).
- `fused_adamw`: PyTorch's fused AdamW kernel (same update, one kernel, other rounding).
- `sdpa`: `torch.nn.functional.scaled_dot_product_attention` (flash / memory-efficient kernels)
  instead of eager attention.

In the paper profile all are off unless a run chooses them, through `--set tf32=true` and the
like (a run with a switch on is its own run, named after it); the smoke recipe turns
`fused_adamw` and `sdpa` on. `apply` applies a recipe's switches; `fine_tune` calls it once.
"""

from dataclasses import replace

SWITCHES = {
    "tf32": "TF32 matmuls instead of full fp32",
    "bf16": "bf16 autocast instead of fp32",
    "fp16": "fp16 autocast instead of fp32",
    "fused_adamw": "fused AdamW kernel instead of PyTorch's default AdamW",
    "sdpa": "SDPA attention instead of eager attention",
}


def deviations(recipe) -> list[str]:
    """The switches a recipe turns on, in words, for the run record."""
    return [text for name, text in SWITCHES.items() if getattr(recipe, name, False)]


def apply(args, recipe, model):
    """Apply the recipe's speed switches to the model and the TrainingArguments; return these."""
    import torch  # lazy: torch takes seconds to import, and most commands never need it

    if torch.cuda.is_available():  # TF32 exists on CUDA GPUs only; off is the official value
        torch.backends.cuda.matmul.allow_tf32 = bool(recipe.tf32)
        torch.backends.cudnn.allow_tf32 = bool(recipe.tf32)
    set_attention(model, "sdpa" if recipe.sdpa else "eager")
    changes = {}
    if recipe.bf16 and not args.bf16:
        changes["bf16"] = True
    if recipe.fp16 and not args.fp16:
        changes["fp16"] = True
    if recipe.fused_adamw:
        changes["optim"] = "adamw_torch_fused"
    return replace(args, **changes) if changes else args


def set_attention(model, implementation: str) -> None:
    """Set the attention of every Hugging Face model inside `model` (task models wrap one)."""
    from transformers import PreTrainedModel  # lazy: seconds to import

    done = set()
    for module in model.modules():
        if isinstance(module, PreTrainedModel) and id(module.config) not in done:
            module.set_attn_implementation(implementation)
            done.update(id(m.config) for m in module.modules() if hasattr(m, "config"))
