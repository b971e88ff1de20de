"""What one pull request may do to a board run by pull requests (the book's own, or a course's
on a fork): add or change the files of one submission folder, `submissions/<slug>/`, and
nothing else. A new submission takes a slug no submission holds (nor one that differs from it
only by `-` against `_`) and a model name no other submission has; an existing submission is
changed only where the workflow says its owner opened the pull request (`owned`). The derived
records (`submissions/_derived/`) are written by the workflow, never by a pull request.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml

from kluebook.common.errors import KluebookError
from kluebook.submissions.files import SLUG
from kluebook.submissions.schema import METADATA

FOLDER = "submissions"


@dataclass(frozen=True)
class PullRequest:
    """The submissions a pull request adds or changes, and one line for each thing refused."""

    slugs: list[str]
    problems: list[str]


def _git(repo: Path, *arguments: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *arguments], capture_output=True, text=True, check=False
        )
    except OSError as error:
        raise KluebookError(f"cannot run git ({error.strerror})") from error
    if done.returncode:
        said = (done.stderr.strip().splitlines() or ["no message"])[0]
        raise KluebookError(f"git {arguments[0]} failed: {said}")
    return done.stdout


def repository_root(folder: Path) -> Path:
    """The root of the git repository `folder` is in."""
    return Path(_git(folder, "rev-parse", "--show-toplevel").strip())


def changed_paths(repo: Path, ref: str) -> list[str]:
    """The paths the working tree changes since it left `ref` (since their merge base, so what
    `ref` gained since then is not counted; committed or not, untracked files included),
    relative to the repository's root."""
    try:
        _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except KluebookError as error:
        raise KluebookError(f"{ref!r} is no commit of this repository") from error
    base = _git(repo, "merge-base", ref, "HEAD").strip()
    changed = _git(repo, "diff", "--name-only", "--no-renames", "-z", base, "--", ".")
    untracked = _git(repo, "ls-files", "--others", "--exclude-standard", "-z", "--", ".")
    return sorted({p for p in (changed + untracked).split("\0") if p})


def existing_models(repo: Path, ref: str) -> dict[str, str]:
    """{slug: its model's name} of the submissions at `ref` (a name that does not read: "")."""
    try:
        listed = _git(repo, "ls-tree", "--name-only", "-z", f"{ref}:{FOLDER}")
    except KluebookError:  # no submissions folder at `ref`
        return {}
    models = {}
    for slug in (s for s in listed.split("\0") if SLUG.fullmatch(s)):
        try:
            data = yaml.safe_load(_git(repo, "show", f"{ref}:{FOLDER}/{slug}/{METADATA}"))
        except (KluebookError, yaml.YAMLError):
            data = None
        model = data.get("model") if isinstance(data, dict) else None
        models[slug] = model.strip() if isinstance(model, str) else ""
    return models


def _same_slug(slug: str) -> str:
    return slug.replace("_", "-")


def pull_request(
    paths: list[str],
    existing: dict[str, str],
    ref: str,
    owned: frozenset[str] = frozenset(),
    models: dict[str, str] | None = None,
) -> PullRequest:
    """What a pull request changing `paths` (relative to the repository's root) does, against
    the submissions `existing` at `ref` ({slug: model name}); `owned`: the existing slugs the
    pull request's author may change; `models`: {slug: model name} of the changed submissions
    as the pull request has them."""
    slugs: list[str] = []
    problems = []
    for path in paths:
        parts = PurePosixPath(path).parts
        if len(parts) != 3 or parts[0] != FOLDER or not SLUG.fullmatch(parts[1]):
            problems.append(
                f"{path}: outside any submission folder (a submission's pull request changes "
                f"only {FOLDER}/<its slug>/; the derived records are the workflow's)"
            )
        elif parts[1] not in slugs:
            slugs.append(parts[1])
    if len(slugs) > 1:
        problems.append(
            f"changes {len(slugs)} submissions ({', '.join(slugs)}): a pull request adds or "
            "changes one submission"
        )
    for slug in slugs:
        if slug in existing and slug not in owned:
            problems.append(
                f"{slug}: a submission of this slug exists on {ref} and is another's: a new "
                "submission takes a slug of its own"
            )
            continue
        if slug in existing:
            continue
        twin = next((s for s in existing if _same_slug(s) == _same_slug(slug)), None)
        if twin:
            problems.append(f"{slug}: too close to the existing slug {twin}: take another")
        model = (models or {}).get(slug, "")
        named = next(
            (s for s, m in existing.items() if model and m.casefold() == model.casefold()), None
        )
        if named:
            problems.append(
                f"{slug}: the model name {model!r} is that of the submission {named}: a new "
                "submission names its own model"
            )
    return PullRequest(slugs, problems)
