"""Secret and PII scanner for memory candidates (R8).

Memory content outlives the session that produced it and is re-injected into later model calls,
so anything credential-like or personally identifying must be caught *before* it is stored. The
package is deliberately dependency-free (stdlib only) so the policy layer, the extraction
workers and offline tools can all share one implementation without pulling in the rest of the
project.

Design rules:

* A :class:`Finding` records only *where* something sensitive is and *what kind* it is, never the
  matched value, so findings can be written to security events and logs without leaking it.
* Every detector pairs a cheap regular expression with a validator (checksums, entropy, context
  words, placeholder filters); see :mod:`.heuristics` and :mod:`.validators`.
* Each detector family lives in its own module (:mod:`.providers`, :mod:`.pem`,
  :mod:`.connections`, :mod:`.assignments`, :mod:`.passwords`, :mod:`.contacts`,
  :mod:`.identifiers`, :mod:`.addresses`) and its rules carry their own priority.
* Overlapping hits are merged into one span and labelled with the highest-priority detector
  (:mod:`.registry`), so redaction never leaves a fragment of a secret behind.
"""

from __future__ import annotations

from core.governance.sensitivity.finding import Finding, FindingType, finding_types
from core.governance.sensitivity.redaction import redact
from core.governance.sensitivity.registry import scan
from core.governance.sensitivity.validators import (
    cn_id_checksum,
    cn_resident_id_valid,
    iban_valid,
    luhn_valid,
)

__all__ = [
    "Finding",
    "FindingType",
    "cn_id_checksum",
    "cn_resident_id_valid",
    "finding_types",
    "iban_valid",
    "luhn_valid",
    "redact",
    "scan",
]
