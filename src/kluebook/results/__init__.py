"""The numbers the pages show, from the run records: the table's rows and cells (`aggregation`),
which runs a cell pools (`pooling`), their intervals (`uncertainty`), paired comparisons
(`compare`), why a prompted run's answers are degenerate (`degenerate`), how much a prompted
score moves with the prompt (`sensitivity`) and the links between the pages that show them
(`links`)."""
