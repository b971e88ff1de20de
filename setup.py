"""Build step beside pyproject.toml: copy the task notebooks into the wheel.

The notebooks stay at notebooks/ in the repository, where the book's Colab and Binder buttons
open them; a wheel (and `pip install "kluebook @ git+..."`) carries a copy in
kluebook/notebooks/ so that `kluebook run` works outside a checkout (see kluebook.common.paths).
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

NOTEBOOKS = Path(__file__).resolve().parent / "notebooks"


class BuildPyWithNotebooks(build_py):
    def run(self):
        super().run()
        if self.editable_mode:  # an editable install reads the checkout's notebooks/
            return
        target = Path(self.build_lib) / "kluebook" / "notebooks"
        self.mkpath(str(target))
        for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
            self.copy_file(str(notebook), str(target / notebook.name))


setup(cmdclass={"build_py": BuildPyWithNotebooks})
