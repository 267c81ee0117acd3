"""The ranges of what a request may carry: ids SQLite can hold, JSON bodies' size and nesting."""

from __future__ import annotations

from werkzeug.routing import IntegerConverter

MAX_ROW_ID = 2**63 - 1  # SQLite's largest INTEGER: a larger id could only be an OverflowError
MAX_JSON_BODY_BYTES = 64 * 1024  # a body of the JSON API (a rig upload may be larger: MAX_UPLOAD_BYTES)
# JSON nesting is bounded by pydantic's parser (about 200 levels), which refuses deeper bodies as invalid JSON.


class RowIdConverter(IntegerConverter):
    """`<int:...>` in every route: 0 to MAX_ROW_ID, so a larger number is a 404 like any unknown id."""

    def __init__(self, map, fixed_digits: int = 0, min: int | None = None, max: int | None = MAX_ROW_ID,
                 signed: bool = False) -> None:
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)
