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


def setup(app):
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
