"""Tests of extractors/: Word, Excel and PowerPoint extraction, views and rendering."""
