"""A run's recipe switches as the scoring functions take them: name -> value (the run's
`Recipe.switches()`), or `NO_SWITCHES` where a caller passes none."""

from types import MappingProxyType

from kluebook.task_types.interface import Switches

NO_SWITCHES: Switches = MappingProxyType({})
