"""Per-feature factories of operations (HOUSE_STYLE: verbs, one module per area)."""
