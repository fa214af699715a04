"""Tests of ingest/: discovery, conversion, curation, ranking, LibreOffice servers, zip limits."""
