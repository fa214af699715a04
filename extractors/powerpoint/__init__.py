"""PowerPoint extractor: a deck into a Document of slides, shapes, text and objects."""
