"""What a task notebook calls: the steps around its lesson (`steps`: set a run up, then score and
write it; the prompted notebook's own: `prompted_steps`), its training procedure in words
(`procedure`) and the error-analysis tables (`analysis`)."""
