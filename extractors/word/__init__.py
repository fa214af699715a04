"""Word extractor: .docx into a Document (pandoc for the body, the package XML for the rest)."""
