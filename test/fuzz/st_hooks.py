"""Schemathesis hooks for the API fuzz run (loaded through SCHEMATHESIS_HOOKS=st_hooks).

Fields the contracts mark as secrets (`format: password`, `writeOnly`: provider keys, invitation
tokens) are filled with secret-shaped strings in the shapes real leaks take, and every response of
the run is checked for any secret sent so far: a key stored in one call must never come back in
another (a list, an audit row, an error message).
"""
import json
import re
import string

import schemathesis
from hypothesis import strategies as st

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "-_"


def _shaped(prefix: str, alphabet: str, size: int):
    return st.text(alphabet, min_size=size, max_size=size).map(lambda body: prefix + body)


# Each shape starts with a prefix no other generated field uses, so finding one in a response
# means it was echoed, not generated twice.
SHAPES = {
    "sk-proj-": (URLSAFE, 48),
    "sk-ant-api03-": (URLSAFE, 80),
    "AKIA": (UPPER_DIGITS, 16),
    "ghp_": (ALNUM, 36),
    "xoxb-": (ALNUM, 40),
    "sk_live_": (ALNUM, 32),
}
schemathesis.openapi.format("password", st.one_of(*(_shaped(p, a, n) for p, (a, n) in SHAPES.items())))

SECRET = re.compile("|".join(f"{re.escape(p)}[{re.escape(a)}]{{{n}}}" for p, (a, n) in SHAPES.items()))


def _sent(case) -> set[str]:
    parts = [case.body, case.query, case.path_parameters]
    return set(SECRET.findall(json.dumps(parts, default=str)))


@schemathesis.check
class secrets_never_echoed:
    """No response body contains a secret-shaped value sent in this run (by this call or earlier)."""

    def __init__(self):
        self.sent: set[str] = set()

    def after_response(self, ctx, response, case):
        self.sent |= _sent(case)
        if not self.sent:
            return None
        body = response.content.decode("utf-8", "replace") if response.content else ""
        echoed = [s for s in self.sent if s in body]
        if echoed:
            raise AssertionError(f"the response echoes {len(echoed)} secret(s) sent in this run, e.g. {echoed[0][:6]}…")
        return None
