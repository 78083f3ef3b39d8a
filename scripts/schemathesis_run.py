#!/usr/bin/env python3
"""schemathesis's command line, with one workaround: Hypothesis describes each filter's
lambda by parsing its source file, and CPython 3.11 can fail that parse deep in a stack
with "SystemError: AST constructor recursion depth mismatch" (a bug of the interpreter,
fixed in later versions). The description only names the lambda in a repr, so a failure
there is answered with Hypothesis's own placeholder instead of ending the run.
Usage: python3 scripts/schemathesis_run.py run URL [schemathesis options]
"""
import sys

from hypothesis.internal import lambda_sources

_describe = lambda_sources._lambda_description


def _described(f):
    try:
        return _describe(f)
    except SystemError:
        return "lambda: <unknown>"


lambda_sources._lambda_description = _described

from schemathesis.cli import schemathesis  # noqa: E402  (after the patch)

if __name__ == "__main__":
    sys.argv[0] = "schemathesis"
    sys.exit(schemathesis())
