"""What every layer uses: the project's folders (`paths`), the one error type (`errors`), JSON
files written atomically (`json_files`), the repository's address (`repository`) and the figures'
style (`plots`)."""
