from kluebook.tasks.ner import data as ner


def test_entity_spans_follow_strict_iob2():
    # B-PS I-PS | O | stray I-LC (no entity) | B-DT | B-DT I-DT at the end
    tags = ["B-PS", "I-PS", "O", "I-LC", "B-DT", "B-DT", "I-DT"]
    assert ner.entity_spans(tags) == [(0, 2, "PS"), (4, 5, "DT"), (5, 7, "DT")]


def test_an_i_tag_of_another_type_ends_the_entity():
    assert ner.entity_spans(["B-PS", "I-OG", "I-PS"]) == [(0, 1, "PS")]


def test_highlight_html_wraps_each_entity_and_escapes_text():
    html = ner.highlight_html(list("김<씨 왔다"), ["B-PS", "O", "O", "O", "O", "O"])
    assert html.count("<span") == 1
    assert "김<sub>PS</sub></span>&lt;씨 왔다" in html
