"""Coarse curation: each file is kept, or dropped with a reason code and a readable reason.

Checks run in this order and the first that fails is recorded:
corrupt / encrypted / not_office / unsupported / too_large / conversion_failed
(from sniffing and preparation), template (template content type, or text that
is mostly template prompts), near_empty (little text and few non-text
elements), non_english (language identified with high confidence and not
allowed), duplicate (identical bytes), near_duplicate (MinHash LSH over word
shingles, within an application; the richest file of a cluster is kept).
"""

from __future__ import annotations

from collections.abc import Iterable

from fidelity.core.apps import APP_NAMES
from ingest.analyze import FileRecord
from ingest.neardup import near_duplicates
from ingest.settings import IngestSettings

# Categories every file has in some amount; they don't make a file "rich".
PLAIN_CATEGORIES = {
    "Text",
    "Slide Text",
    "Metadata",
    "Language",
    "Layout",
    "Font",
    "Sheet",
    "Unstructured",
    "Shapes/Type & Color",
}


def artifact_units(record: FileRecord) -> int:
    """Non-text elements a file holds (tables, images, notes, formulas, ...)."""
    return sum(n for name, n in record.categories.items() if name not in PLAIN_CATEGORIES)


def richness(record: FileRecord) -> tuple[int, int, int, bool, str]:
    """Preference inside a duplicate cluster: more categories, more elements, more text,
    natively OOXML, then path order."""
    present = sum(1 for n in record.categories.values() if n)
    return (
        -present,
        -artifact_units(record),
        -record.text_chars,
        record.converted_from is not None,
        record.path,
    )


def check_file(record: FileRecord, settings: IngestSettings) -> None:
    """The per-file checks: problems, templates, near-empty, language."""
    if record.problem:
        record.drop(record.problem_code or "unreadable", record.problem)
        return
    if settings.drop_templates and record.template_type:
        record.drop("template", f"template file ({record.format} content type)")
        return
    if record.text_chars and record.placeholder_fraction >= settings.placeholder_fraction:
        record.drop(
            "template",
            f"placeholder-only content: {record.placeholder_fraction:.0%} of the text is "
            f"template prompts (threshold {settings.placeholder_fraction:.0%})",
        )
        return
    units = artifact_units(record)
    if record.text_chars < settings.min_text_chars and units < settings.min_artifacts:
        record.drop(
            "near_empty",
            f"near-empty: {record.text_chars} characters of text and {units} non-text "
            f"elements (thresholds {settings.min_text_chars} and {settings.min_artifacts})",
        )
        return
    allowed = settings.languages
    if (
        allowed
        and record.language not in allowed
        and record.language != "und"
        and record.language_score >= settings.language_min_confidence
    ):
        record.drop(
            "non_english" if allowed == ("en",) else "language",
            f"language is {record.language} (p={record.language_score:.2f}), "
            f"not one of {', '.join(allowed)}",
        )


def drop_duplicates(records: Iterable[FileRecord], settings: IngestSettings) -> None:
    """Identical bytes, then near-duplicate text, among the files still kept."""
    live = sorted((r for r in records if r.kept), key=richness)
    first_of: dict[str, FileRecord] = {}
    for record in live:
        if record.sha256 in first_of:
            record.duplicate_of = first_of[record.sha256].path
            record.drop("duplicate", f"identical bytes to {record.duplicate_of}")
        else:
            first_of[record.sha256] = record
    by_path = {record.path: record for record in live}
    for app in APP_NAMES:
        items = [(r.path, r.text) for r in live if r.kept and r.app == app]
        for duplicate in near_duplicates(
            items, settings.near_duplicate_threshold, settings.shingle_words
        ):
            record = by_path[duplicate.key]
            record.duplicate_of = duplicate.of
            record.drop(
                "near_duplicate",
                f"near-duplicate of {duplicate.of} (Jaccard {duplicate.similarity:.2f} "
                f">= {settings.near_duplicate_threshold})",
            )


def curate(records: list[FileRecord], settings: IngestSettings) -> None:
    for record in records:
        check_file(record, settings)
    drop_duplicates(records, settings)
