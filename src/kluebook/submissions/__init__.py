"""Submissions: dev-set predictions of any model, checked against the official files and
rescored by the official metric code.

A submission is a folder `submissions/<slug>/` holding `submission.yaml` (validated by
`schema.Submission`) and one predictions file per task, `<task>.jsonl` or `<task>.jsonl.gz`, in
the line formats `kluebook score` reads. Every file is untrusted input: `files` reads it
size-limited and streamed, `check` verifies it, `derived` rescores it into a record that carries
the checksum of every input.
"""
