"""The papermill engine a run executes with: papermill's own nbclient engine, except that the
executed notebook is written when the run ends, not at every cell's start and end.

papermill rewrites the whole notebook (serialised and validated) twice per cell; the smoke
book's 16 runs made some 1,200 such writes, in the process that also feeds both kernels. The
notebook as far as a failed or interrupted run got is still written: papermill's last write
comes in a `finally`, after this engine has handed the path back.
"""

from papermill.engines import NBClientEngine, papermill_engines

NAME = "kluebook"


class WriteAtEnd(NBClientEngine):
    """NBClientEngine without the writes between the first and the last."""

    @classmethod
    def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):
        output_path, nb_man.output_path = nb_man.output_path, None
        try:
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)
        finally:
            nb_man.output_path = output_path


papermill_engines.register(NAME, WriteAtEnd)
