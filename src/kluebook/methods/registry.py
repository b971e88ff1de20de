"""The methods kluebook knows, by name: the fine-tuned and the prompted ones, and any a
caller registers (`register`). A third method is one module and one registration."""

from kluebook.common.errors import KluebookError
from kluebook.methods.fine_tuned import FINE_TUNED, FineTuned
from kluebook.methods.interface import Method
from kluebook.methods.prompted import Prompted

_METHODS: dict[str, Method] = {}
# The method of a run whose record names none (records written before runs were prompted).
DEFAULT_METHOD = FINE_TUNED


def register(method: Method) -> Method:
    """Make `method` known by its name (a second one of that name replaces the first)."""
    _METHODS[method.name] = method
    return method


def unregister(name: str) -> None:
    """Forget the method named `name` (a test's own)."""
    _METHODS.pop(name, None)


def method_named(name: str) -> Method:
    """The method named `name`; a one-line error naming the known ones."""
    try:
        return _METHODS[name]
    except KeyError:
        raise KluebookError(f"unknown method {name!r}; choose {' or '.join(_METHODS)}") from None


def all_methods() -> list[Method]:
    """The known methods, in the order they were registered."""
    return list(_METHODS.values())


def method_names() -> tuple[str, ...]:
    return tuple(_METHODS)


def uncounted_parameters() -> frozenset[str]:
    """The notebook parameters that are no part of a run's `parameters` input, for any method."""
    return frozenset(n for m in _METHODS.values() for n in m.parameters.uncounted_names())


def runner_parameters() -> frozenset[str]:
    """The notebook parameters the runner sets, for any method (a run's `--set` may not)."""
    return frozenset(n for m in _METHODS.values() for n in m.parameters.runner_names())


register(FineTuned())
register(Prompted())
