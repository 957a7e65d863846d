"""JSON Schemas bundled with policytest (installed as ``policytest.schemas``)."""
