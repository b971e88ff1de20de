"""The `kluebook` command line: its commands (`app`) and what their options mean (`options`)."""
