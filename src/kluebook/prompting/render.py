"""A prompt from a task's template, its demonstrations and the query item; the template's digest.

The layout, in blocks separated by a blank line:

    <instruction>
    <answer format>

    <query of demonstration 1>
    <answer prefix> <its answer, in the template's words>

    ... (each demonstration)

    <query of the item>
    <answer prefix>

The model's answer is what follows the last answer prefix. Where the model's tokenizer has a
chat template, the whole text is the user's turn and the assistant's turn is opened after it
(`chat_prompt`).
"""

from kluebook.common.errors import KluebookError
from kluebook.tasks.prompt_items import PromptItem, PromptTemplate


def render_prompt(
    template: PromptTemplate, demonstrations: list[PromptItem], item: PromptItem
) -> str:
    """The plain-text prompt of `item`, its demonstrations answered before it."""
    blocks = [f"{template.instruction.strip()}\n{template.answer_format.strip()}"]
    for shot in demonstrations:
        answer = template.written(shot.answer)
        blocks.append(f"{_query(template, shot)}\n{template.answer_prefix} {answer}")
    blocks.append(item_block(template, item))
    return "\n\n".join(blocks)


def item_block(template: PromptTemplate, item: PromptItem) -> str:
    """The item's own block of its prompt, the last: its query and the answer prefix (what
    precedes it, the instruction and the demonstrations, is the same for every item of a run)."""
    return f"{_query(template, item)}\n{template.answer_prefix}"


def _query(template: PromptTemplate, item: PromptItem) -> str:
    try:
        return template.query.format(**item.fields).strip()
    except KeyError as missing:
        raise KluebookError(
            f"the template's query names the field {missing}, which item {item.key!r} does not "
            f"have (its fields: {', '.join(sorted(item.fields)) or 'none'})"
        ) from None


def chat_prompt(text: str, tokenizer) -> str:
    """`text` as the user's turn of the tokenizer's chat template, the assistant's turn opened;
    `text` itself when the tokenizer has no chat template."""
    if not getattr(tokenizer, "chat_template", None):
        return text
    messages = [{"role": "user", "content": text}]
    return tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
