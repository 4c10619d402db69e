"""Hide the secret parts of URLs before they are shown anywhere (messages, hints, logs, `mcb config show`).

A server URL may carry a password (``http://user:SECRET@host``) or a token in its query (``?token=SECRET``);
mcb refuses such URLs, but the refusal itself, and every other message naming a URL, must not repeat them.
Works on text that does not parse as a URL, too (the refusal of a malformed URL still names it).
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"
# scheme://userinfo@  (userinfo: anything up to the first @ before the host part ends)
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#@\s'\"]*)@")
# ?a=b&c=d#frag inside a URL-looking word
_QUERY = re.compile(r"(?P<mark>[?&;])(?P<name>[^=&;#\s'\"]*)(?P<eq>=?)(?P<value>[^&;#\s'\"]*)")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"]*")


def redact_url(url: str) -> str:
    """``url`` with its userinfo and every query value (and any fragment) replaced by ``[redacted]``."""
    text = _USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", url)
    if "://" not in text and "@" in text:  # "user:pass@host" without a scheme
        text = REDACTED + "@" + text.rpartition("@")[2]
    head, mark, query = text.partition("?")
    if mark:
        query, hash_mark, _fragment = query.partition("#")

        def value(match: re.Match) -> str:
            if match["eq"]:
                return f"{match['mark']}{match['name']}={REDACTED}"
            return f"{match['mark']}{REDACTED}" if match["name"] else match["mark"]

        text = head + _QUERY.sub(value, "?" + query) + (f"#{REDACTED}" if hash_mark else "")
    elif "#" in text:
        text = text.partition("#")[0] + f"#{REDACTED}"
    return text


def redact_urls_in(text: str) -> str:
    """Every URL found in ``text`` redacted with :func:`redact_url`."""
    return _URL.sub(lambda m: redact_url(m.group(0)), text)
