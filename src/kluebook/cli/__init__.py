"""The `kluebook` command line: the app and its entry point (`app`), its commands by concern
(`run_commands`: run, status; `book_commands`: report, book, set-repository; `score_commands`:
score, compare), what their options choose, as typed objects (`choices`), and the options as
declared and parsed (`options`)."""
