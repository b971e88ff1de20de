"""What a run leaves and was made from: its record (`records`), what no file it leaves may hold
(`redaction`), its inputs, hashed (`fingerprints`, over the code it imports: `code_closure`),
where it ran (`provenance`) and the executed notebook it keeps (`kept_notebook`)."""
