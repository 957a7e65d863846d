"""One self-contained HTML page: Jinja2 templates with autoescape on, the stylesheet and
the script inline, and a Content-Security-Policy that allows exactly those two and
nothing else (no network request of any kind, no other script or style).

Jinja2 is imported here only, so it costs nothing unless ``--format html`` is asked for.
Every value from an input reaches a template already quoted for display (control and
bidirectional characters shown as escapes, see :func:`shown`) and is then HTML-escaped
by autoescape; the node data the script draws is JSON escaped for a ``<script>`` block
(``tojson``) and only ever set as ``textContent``.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib.resources import files

from policytest.reporters.quoting import text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import jinja2

PALETTE = ("#0969da", "#1a7f37", "#bf3989", "#9a6700", "#8250df", "#cf222e", "#1b7c83", "#57606a")
"""Colours of the plugins in a stacked score bar, in the order the plugins are listed."""


def shown(value: object) -> str:
    """A value from an input as a page shows it: one line, control and bidirectional
    characters as visible escapes (autoescape then makes it HTML text)."""
    return text(value)


def render_page(template: str, **context: Any) -> str:
    """The page ``template`` renders with ``context``, styles and script inline."""
    css = _asset("report.css")
    script = _asset("report.js")
    policy = (
        "default-src 'none'; "
        f"style-src '{_digest(css)}'; script-src '{_digest(script)}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    rendered: str = (
        _environment()
        .get_template(template)
        .render(css=css, script=script, policy=policy, palette=PALETTE, **context)
    )
    return rendered


@cache
def _environment() -> jinja2.Environment:
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("policytest.reporters.html", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.globals["zip"] = zip
    environment.filters["shown"] = shown
    environment.filters["number"] = number
    environment.filters["percent"] = percent
    environment.policies["json.dumps_kwargs"] = {"separators": (",", ":"), "sort_keys": False}
    return environment


@cache
def _asset(name: str) -> str:
    return files("policytest.reporters.html").joinpath("assets").joinpath(name).read_text("utf-8")


def _digest(source: str) -> str:
    """The CSP hash source of an inline block (``sha256-...``)."""
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode()


def number(value: float | None) -> str:
    """A score or count as the text reports write it (integers without a point)."""
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def percent(fraction: float | None) -> str:
    return "n/a" if fraction is None else f"{fraction:.1%}"
