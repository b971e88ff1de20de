"""A run's recipe switches as the scoring functions take them: name -> value (the run's
`Recipe.switches()`), or `NO_SWITCHES` where a caller passes none."""

from collections.abc import Mapping
from types import MappingProxyType

Switches = Mapping[str, object]
NO_SWITCHES: Switches = MappingProxyType({})
