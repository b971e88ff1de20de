"""Running notebooks: what a command asks to run (`run_matrix`, `run_spec`, `run_plan`), the sweep
(`runner`), where each run executes (`executors` here, `cluster_executors` on a Dask cluster or
Slurm jobs), how (`worker`, `papermill_engine`), on what kernel (`kernels`, forked from a warm
process: `warm_kernels` asking `warm_kernel_server`), what runs now (`in_progress`) and what it
leaves in the book root (`run_store`)."""
