"""The Jupyter Book: its build (`build`), its Sphinx extension (`sphinx_hooks`) and the pages
generated from the run records before it is built (`report` writes them: the task and methods
pages, the run pages, the results page with the KLUE table, its figures and downloads, the
status page)."""
