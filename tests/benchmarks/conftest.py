"""The prompted task of the tests' own (`support.prompted.prompted_task`), registered for the
tests of this package only: the prompting throughput benchmark runs on it."""

from support import prompted

prompted_task = prompted.prompted_task
