"""A changed value as a person reads it, in the judge's reasons and the review queue's
"possibly replaces" line: never the slot's internal name ("qty:gb")."""

from __future__ import annotations

# Canonical unit names (`canonical._UNITS`) as people write them; the rest read as they are.
_UNIT_SHOWN = {
    **{u: u.upper() for u in ("gb", "mb", "tb", "cny", "usd", "eur", "gbp")},
    "pct": "%",
    "deg": "°",
    "degf": "°F",
    "monthcount": "months",
    "litre": "l",
    "gram": "g",
    "people": "people",
    "times": "times",
    "k": "thousand",
}
_MONTH_NAMES = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def shown_change(kind: str, old: str, new: str) -> str:
    """A changed slot as a person reads it: "16 GB → 32 GB", "port 8080 → port 8443",
    "3 Jun → 10 Jun", "Mon → Tue"; never the slot's internal name ("qty:gb")."""

    def one(value: str) -> str:
        if kind.startswith("qty:"):
            unit = _UNIT_SHOWN.get(kind[4:], kind[4:])
            return f"{value}{unit}" if unit in ("%", "°", "°F") else f"{value} {unit}"
        if kind.startswith("num:"):
            return f"{kind[4:]} {value}"
        if kind == "date" and len(value) == 5 and value[2] == "-":
            return f"{int(value[3:])} {_MONTH_NAMES[int(value[:2]) - 1]}"
        if kind == "year_month" and len(value) == 7:
            return f"{_MONTH_NAMES[int(value[5:]) - 1]} {value[:4]}"
        if kind == "weekday":
            return value.capitalize()
        return value

    return " → ".join(", ".join(one(v) for v in side.split(",")) for side in (old, new))
