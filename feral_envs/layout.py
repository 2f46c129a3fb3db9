"""Named index ranges: the one source of truth for action spaces and observation vectors.

An encoding module declares its action space and its observation as a :class:`Layout` of
named :class:`Span` objects; code indexes with the spans (``OBS.hand.start``) and the docs'
tables are generated from the same objects (:meth:`Layout.markdown`), so the two can never
disagree. ``python -m feral_envs.docgen`` rewrites the tables in ``docs/``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """``size`` consecutive indices named ``name``, starting at ``start``."""

    name: str
    start: int
    size: int
    doc: str

    @property
    def stop(self) -> int:
        return self.start + self.size

    @property
    def slice(self) -> slice:
        return slice(self.start, self.stop)

    def __contains__(self, index: int) -> bool:
        return self.start <= index < self.stop


class Layout:
    """An ordered set of spans laid end to end: ``Layout(("hand", 32, "my cards"), ...)``.

    Spans are attributes (``layout.hand``) and ``layout.size`` is the total length.
    """

    def __init__(self, *fields: tuple[str, int, str]) -> None:
        spans, start = [], 0
        for name, size, doc in fields:
            if size <= 0:
                raise ValueError(f"span {name!r} must have a positive size")
            span = Span(name, start, size, doc)
            if hasattr(self, name):
                raise ValueError(f"span name {name!r} is used twice or shadows an attribute")
            setattr(self, name, span)
            spans.append(span)
            start += size
        self.spans: tuple[Span, ...] = tuple(spans)
        self.size = start

    def span_of(self, index: int) -> Span:
        """The span that holds ``index``."""
        for span in self.spans:
            if index in span:
                return span
        raise IndexError(f"index {index} is outside 0..{self.size - 1}")

    def markdown(self, title: str = "name") -> str:
        """The layout as a Markdown table: index range, size, name, meaning."""
        rows = [f"| indices | size | {title} | meaning |", "| --- | --- | --- | --- |"]
        for s in self.spans:
            where = f"{s.start}" if s.size == 1 else f"{s.start}–{s.stop - 1}"
            rows.append(f"| {where} | {s.size} | `{s.name}` | {s.doc} |")
        return "\n".join(rows)
