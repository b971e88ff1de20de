"""Published, reproduced, corrected: KLUE's known errata, versioned in one manifest
(`errata.yaml` here, read and checked by `manifest`), the data errata as small edits of the
official records (`edits`: each old value checked where it is said to be, else refused), and
what they do to a run's numbers (`corrections`)."""
