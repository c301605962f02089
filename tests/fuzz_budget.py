"""Hypothesis budgets for the bad-input fuzz suites.

CI runs a few examples per property. ``NAVJUMP_FUZZ_EXAMPLES=N`` raises every property to N
examples, so the same tests serve as the long hypothesis session of the bad-input audit
(run it with ``--hypothesis-show-statistics`` to see the example counts).
"""

import os

from hypothesis import HealthCheck, settings

FUZZ_EXAMPLES = int(os.environ.get("NAVJUMP_FUZZ_EXAMPLES", "0") or 0)


def fuzz_settings(ci_examples: int):
    """Hypothesis settings: ``ci_examples`` in CI, ``NAVJUMP_FUZZ_EXAMPLES`` when set."""
    return settings(max_examples=FUZZ_EXAMPLES or ci_examples, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))
