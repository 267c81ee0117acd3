"""Reading a JSON file into a pydantic model, with one clear error that names the file and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

ModelT = TypeVar("ModelT", bound=BaseModel)


def describe_validation_error(error: ValidationError) -> str:
    """Every problem pydantic found, as `field.path: message`, joined by semicolons."""
    return "; ".join(
        f"{'.'.join(str(part) for part in issue['loc']) or '(top level)'}: {issue['msg']}" for issue in error.errors()
    )


def load_json_model(path: str | Path, model: type[ModelT], error: type[Exception], what: str) -> ModelT:
    """Read `path` as JSON and validate it as `model`; any problem raises `error` naming `what` and the file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{what} not found: {path}") from None
    except (OSError, json.JSONDecodeError) as problem:
        raise error(f"cannot read {what} {path}: {problem}") from None
    try:
        return model.model_validate(data)
    except ValidationError as problem:
        raise error(f"{path}: {describe_validation_error(problem)}") from None
