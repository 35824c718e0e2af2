"""A plotly figure given as its finished dictionary, for figures a page sends again and again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go


class FrozenFigure(go.Figure):
    """A figure given as its finished dictionary (:meth:`plotly.graph_objects.Figure.to_dict`),
    which :meth:`to_dict` returns as it is, without the deep copy plotly makes of a figure.

    ``st.plotly_chart`` asks a figure for ``to_dict()`` before writing its JSON: for a map of
    20,000 points the copy alone took 0.11-0.16 s of every rerun. A frozen figure is built once
    (the page keeps it between reruns) and never changed: :meth:`with_traces` returns a new one
    that shares the map's traces. Its ``data`` and ``layout`` attributes stay empty; read
    :meth:`to_dict`.
    """

    def __init__(self, spec: Mapping) -> None:
        super().__init__()
        if not isinstance(spec, Mapping) or "data" not in spec:
            raise ValueError("A frozen figure needs a figure dictionary with a 'data' list.")
        self._spec = {**spec, "data": list(spec["data"])}
        self._spec.setdefault("layout", {})

    @classmethod
    def of(cls, figure: go.Figure) -> FrozenFigure:
        """``figure`` frozen (one deep copy, now)."""
        return cls(figure.to_dict())

    def to_dict(self) -> dict:
        return self._spec

    def to_plotly_json(self) -> dict:
        return self._spec

    @property
    def n_traces(self) -> int:
        """How many traces the figure draws."""
        return len(self._spec["data"])

    def with_traces(self, traces: Sequence[go.BaseTraceType]) -> FrozenFigure:
        """A new frozen figure: these traces drawn over this figure's (which are shared, not
        copied)."""
        added = [trace.to_plotly_json() for trace in traces]
        return FrozenFigure({**self._spec, "data": self._spec["data"] + added})

    def with_layout(self, **changes) -> FrozenFigure:
        """A new frozen figure with these top-level layout entries changed (``height=860``);
        its traces are shared, not copied."""
        return FrozenFigure({**self._spec, "layout": {**self._spec["layout"], **changes}})
