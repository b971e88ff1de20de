"""What a task notebook calls: the steps around its lesson (`steps`: set a run up, then score and
write it), its training procedure in words (`procedure`) and the error-analysis tables
(`analysis`)."""
