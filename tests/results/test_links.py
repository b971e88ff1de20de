"""Links between the pages of the built site: one address per page."""

from kluebook.results.links import href


def test_a_run_pages_address_is_percent_encoded_as_sphinx_encodes_its_own_links():
    """A prompted run's page name holds commas and equals signs: every link kluebook writes to
    it has the form Sphinx's sidebar and contents links have (%2C, %3D), so a page has one
    address whichever link a reader followed; the anchor is left as it is."""
    page = "book/runs/nli/smoke-kluebook--tiny-qwen3-prompted,dev_limit=20,shots=5-seed1"
    assert href("book/results", page, "items") == (
        "runs/nli/smoke-kluebook--tiny-qwen3-prompted%2Cdev_limit%3D20%2Cshots%3D5-seed1.html#items"
    )
    assert href("book/_generated/tasks/nli", "book/runs/nli/smoke-x-seed1") == (
        "../../runs/nli/smoke-x-seed1.html"
    )
