"""Readers shared by the extractors: OOXML namespaces, number formats, charts, properties."""
