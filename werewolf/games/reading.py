"""Model instances from a statement written once, as `raw()` makes them, for less.

`Model.objects.raw(sql, params)` works out, on every query, which field each column of the
statement's rows is and which converters it goes through (the database backend's, then
the field's own: a JSON column decoded, a time made aware), in Python, for every column;
for a game's row (forty columns) that is most of what reading it costs. Here that is
worked out once per connection for each model and list of columns, and each row then
goes through the same converters into `Model.from_db`, as `raw()` sends it
(`tests/web/test_rows.py` holds every page read to the ORM query it replaces)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections, models

R = TypeVar("R", bound=models.Model)


def read(model: type[R], sql: str, params: Sequence[Any]) -> list[R]:
    """`list(model.objects.raw(sql, params))`: the same instances, built the same way
    (`Model.from_db`, each column through its field's converters, a column that is no
    field of the model set as an attribute), with what `raw()` works out again on every
    query (which field each column is, and its converters) worked out once per
    connection for each model and list of columns (`_Reading`)."""
    connection = connections[DEFAULT_DB_ALIAS]  # (this thread's)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        columns = tuple(column[0] for column in cursor.description)
        found = cursor.fetchall()
    readings: dict[tuple[type[Any], tuple[str, ...]], _Reading] = connection.__dict__.setdefault(_READINGS, {})
    reading = readings.get((model, columns))
    if reading is None:
        reading = readings[model, columns] = _Reading(connection, model, columns)
    return [reading.instance(row) for row in found]


class _Reading:
    """How `raw()` makes an instance of `model` from a row of `columns` (RawModelIterable):
    the fields' values in the model's order, each through its converters (the database
    backend's, then the field's own), the other columns set as attributes."""

    def __init__(self, connection: Any, model: type[Any], columns: tuple[str, ...]) -> None:
        identifier = connection.introspection.identifier_converter
        by_column = {identifier(field.column): field for field in model._meta.fields}
        fields = [field for field in model._meta.fields if identifier(field.column) in columns]
        self.model = model
        self.names = [field.attname for field in fields]
        self.positions = [columns.index(identifier(field.column)) for field in fields]
        self.extra = [(column, position) for position, column in enumerate(columns) if column not in by_column]
        self.converters: list[tuple[int, list[Any], Any]] = []
        for position, column in enumerate(columns):
            field = by_column.get(column)
            if field is None:
                continue
            col = field.get_col(model._meta.db_table)
            converters = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
            if converters:
                self.converters.append((position, converters, col))
        self.connection = connection

    def instance(self, row: Sequence[Any]) -> Any:
        values = list(row)
        for position, converters, col in self.converters:
            value = values[position]
            for converter in converters:
                value = converter(value, col, self.connection)
            values[position] = value
        made = self.model.from_db(self.connection.alias, self.names, [values[position] for position in self.positions])
        for column, position in self.extra:
            setattr(made, column, values[position])
        return made


_READINGS = "werewolf_readings"
"""Where a connection keeps its readings (a connection is a thread's, and its backend's
converters are its own methods: kept with it, they go with it)."""
