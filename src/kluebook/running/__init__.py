"""Running notebooks: what a command asks to run (`run_matrix`, `run_spec`, `run_plan`), the sweep
(`runner`), where each run executes (`executors`), how (`worker`, `papermill_engine`, on kernels
forked from a warm process: `warm_kernels`) and what it leaves in the book root (`run_store`)."""
