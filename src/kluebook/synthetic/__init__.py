"""Smoke-profile data: small, seeded, learnable data sets in the official KLUE file formats.

Each module `kluebook.synthetic.<task>` has `generate(seed) -> dict[str, object]`, mapping the
file roles of the task's registry entry (train, dev, and any extra file) to their content.
The text is written for this project; no KLUE sentence is reproduced.
"""
