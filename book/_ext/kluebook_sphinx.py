"""Sphinx tweaks for the kluebook site (loaded through `local_extensions` in _config.yml)."""


def drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    """Keep one copy of each script of a page.

    Scripts that extensions add once the build has started (sphinx-thebe's configuration,
    sphinx-togglebutton's selector) reach every page twice with Jupyter Book 1.0; the second
    `const THEBE_JS_URL` is a JavaScript error in every reader's console.
    """
    seen, kept = set(), []
    for script in context.get("script_files", []):
        attributes = getattr(script, "attributes", {})
        # One copy has the filename None, the other "": both mean an inline script.
        key = (getattr(script, "filename", script) or "", tuple(sorted(attributes.items())))
        if key not in seen:
            seen.add(key)
            kept.append(script)
    context["script_files"] = kept


def drop_mathjax_without_math(app, pagename, templatename, context, doctree):
    """Load MathJax only on pages with math.

    An extension asks Sphinx to put every asset on every page, so each page would fetch MathJax
    from its CDN: a needless request for every reader, and a failed one offline.
    """
    from docutils import nodes

    has_math = doctree is not None and any(
        True for _ in doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block)))
    )
    if has_math:
        return
    context["script_files"] = [
        script
        for script in context.get("script_files", [])
        if "mathjax" not in (getattr(script, "filename", script) or "")
    ]


def setup(app):
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    app.connect("html-page-context", drop_mathjax_without_math, priority=901)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
