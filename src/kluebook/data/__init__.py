"""The data: a task's splits read from the official files or generated (`loading`), the official
files fetched and checked (`fetch`), KLUE's file layouts (`klue_json`, `klue_tsv`), Hangul helpers
(`hangul`) and the smoke splits (`smoke_splits`)."""
