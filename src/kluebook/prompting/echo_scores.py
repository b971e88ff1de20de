"""Rank scores from a server's echoed log-probabilities: what the cache keeps of an echo
(completions with `echo` and `logprobs`, `echoed_tokens`) and the rank rule applied to the
kept echoes of a prompt and of the prompt with each answer (`echoed_scores`), so that the
server backend ranks answers as the local backend does (`conditioning_length`), and counts
their tokens as it does (`echoed_usage`).
"""

import hashlib
import json

from kluebook.common.errors import KluebookError
from kluebook.prompting.answering import RankScores, Usage, conditioning_length

# Of an echo, a rank answer keeps the tokens from this many characters before the answer (far
# more than a token spans) and a digest of those before: the rank rule needs no more.
ECHO_WINDOW = 128


def echoed_tokens(logprobs, answer_from: int, usage=None) -> dict | None:
    """What the cache keeps of an echo (completions with `echo`, `logprobs` and `max_tokens`
    1): the tokens of the text sent from `ECHO_WINDOW` characters before `answer_from` (by
    their `text_offset`), their log-probabilities, and how many came before and their digest.
    The text sent is `usage.prompt_tokens` tokens long where the server says, else all but the
    one generated. None when the echo carries no log-probability for a token it must."""
    tokens = list(getattr(logprobs, "tokens", None) or [])
    values = list(getattr(logprobs, "token_logprobs", None) or [])
    offsets = list(getattr(logprobs, "text_offset", None) or [])
    sent = getattr(usage, "prompt_tokens", None) or len(tokens) - 1
    if not 0 < sent <= len(tokens) or len(values) != len(tokens) or len(offsets) != len(tokens):
        return None
    start = next((i for i in range(sent) if offsets[i] >= answer_from - ECHO_WINDOW), sent)
    if any(not isinstance(value, int | float) for value in values[max(start, 1) : sent]):
        return None  # the first token has none: nothing comes before it
    before = hashlib.sha256(json.dumps(tokens[:start]).encode()).hexdigest()
    return {
        "before": [start, before],
        "tokens": tokens[start:sent],
        "logprobs": values[start:sent],
    }


def echoed_scores(prompt: dict, wholes: list[dict]) -> RankScores:
    """The rank rule on the kept echoes of a prompt and of its whole texts (prompt and answer):
    each answer's score is the sum of its whole text's log-probabilities after the tokens all
    share."""
    if any(whole["before"] != prompt["before"] for whole in wholes):
        raise KluebookError(
            f"the echoed tokens of a prompt and its answers differ more than {ECHO_WINDOW} "
            "characters before the answer: rank mode cannot score them"
        )
    length, crossings = conditioning_length(prompt["tokens"], [w["tokens"] for w in wholes])
    return RankScores([float(sum(w["logprobs"][length:])) for w in wholes], crossings)


def echoed_usage(prompt: dict, wholes: list[dict]) -> Usage:
    """The tokens of the echoes of a prompt and of its whole texts: each answer's scored tokens
    (after those all share) are its completion, every other token sent is prompt (the one token
    each echo generates is thrown away, and not counted)."""
    sent = sum(echo["before"][0] + len(echo["tokens"]) for echo in (prompt, *wholes))
    length, _ = conditioning_length(prompt["tokens"], [w["tokens"] for w in wholes])
    scored = sum(len(whole["tokens"]) - length for whole in wholes)
    return Usage(prompt_tokens=sent - scored, completion_tokens=scored)
