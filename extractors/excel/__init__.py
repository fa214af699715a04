"""Excel extractor: a workbook into a Document of sheets, regions, tables, formulas and objects."""
