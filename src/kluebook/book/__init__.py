"""The Jupyter Book: its build (`build`), its Sphinx extensions (`sphinx_hooks`: launch buttons,
exercise labels, the tables' library; `sphinx_extension`: scripts, the smoke banner, what
assistive technology needs) and the pages generated from the task registry and the run records
before it is built (`report` writes them:
the task table, prediction formats and methods pages, `registry_pages`; the task landing pages
and the table of contents, `pages`; the run pages; the results page with the KLUE table, the
gap to the published numbers, its figures and downloads; the sensitivity to the prompt,
`prompt_sensitivity`; the errata page and the corrected values, `errata_page`; the status
page; the cost of the prompted runs on the prompting page, `cost_table`).

Every string from outside (a model name or id, a template, a configuration, a `--set` value, an
error, anything a record holds) enters a generated page's Markdown through `myst` (`text`,
`code`, `code_block`, `doc_link`), and its HTML through the templates (`templates/`, rendered
with autoescaping by `templating`), so a name is text on every page; a run's file names and
page address are made of safe characters (`paths.file_name`). The build learns which run a run
page shows from the report's index of them (`run_index`), made from the records."""
