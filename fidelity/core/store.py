"""The run store: one SQLite file (WAL) in the output folder.

A file's document, candidates and decisions are written in one transaction, so a
run killed at any point leaves either all of a file's work or none of it; the
next run skips finished files and redoes the rest. Model calls, contexts and
run-wide decisions (de-duplication) live here too.

A context text is stored once by its hash, as the digests of its line chunks, each distinct
chunk once and compressed (context_chunks.py): a file's views share nearly all their lines.
A store written before (one `contexts` table of whole texts) is converted when opened.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from fidelity.core import context_chunks
from fidelity.core.document import Candidate, Decision, Document
from fidelity.core.gc_pause import collector_paused
from fidelity.core.mistake import Mistake
from fidelity.core.run_snapshot import (
    CandidateRow,
    ModelCallRecord,
    RunSnapshot,
    output_document,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    sha256 TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    info TEXT NOT NULL DEFAULT '{}',
    document TEXT
);
CREATE TABLE IF NOT EXISTS candidates (
    id TEXT PRIMARY KEY,
    file_sha TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    ground_status TEXT NOT NULL DEFAULT 'pending',
    rejected_by TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS decisions (
    candidate_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (candidate_id, seq)
);
CREATE TABLE IF NOT EXISTS context_texts (
    hash TEXT PRIMARY KEY,
    chunks BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS context_chunks (
    digest BLOB PRIMARY KEY,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS model_calls (
    key TEXT PRIMARY KEY,
    stage TEXT NOT NULL,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    usage TEXT NOT NULL DEFAULT '{}',
    error TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


STORE_NAME = "run.sqlite"
# What the stored documents hold: 2 = each artifact declares the views that leave it out
# (removed_by, shown_by, answerable_from). Documents of an older run build other views, so
# its decisions could not be replayed or extended: such a run is refused, not mixed.
# 3 = each artifact's place is structured (`where`); its locator is rendered from it.
DOCUMENT_FORMAT = 3
FORMAT_KEY = "document_format"
OLD_CONTEXTS = "contexts"  # whole context texts, as stores written before chunking hold them
CANDIDATE_ROWS = (
    "SELECT c.body, c.status, c.rejected_by, c.reason FROM candidates c "
    "JOIN files f ON f.sha256 = c.file_sha WHERE f.status = 'done'"
)
CANDIDATE_ORDER = " ORDER BY f.path, c.seq, c.id"
CANDIDATE_LIST = TypeAdapter(list[Candidate])


def parse_candidates(bodies: list[str]) -> list[Candidate]:
    """Stored candidate bodies validated in one call (much faster than one call each)."""
    return CANDIDATE_LIST.validate_json("[" + ",".join(bodies) + "]")


class RunStore:
    """Typed access to the run's SQLite file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        if self._table_exists(OLD_CONTEXTS):
            self._convert_contexts()
        self._check_format()

    def _check_format(self) -> None:
        stored = self.meta(FORMAT_KEY)
        if stored == DOCUMENT_FORMAT:
            return
        held = self.db.execute("SELECT 1 FROM files WHERE document IS NOT NULL LIMIT 1")
        if stored is None and held.fetchone() is None:
            self.set_meta(FORMAT_KEY, DOCUMENT_FORMAT)
            return
        self.close()
        raise Mistake(
            f"{self.path} was written by an earlier version of fidelity (document format "
            f"{stored or 1}, this version reads {DOCUMENT_FORMAT}): build into a new output "
            "folder, or delete this one"
        )

    def _table_exists(self, name: str) -> bool:
        query = "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?"
        return self.db.execute(query, (name,)).fetchone() is not None

    def _convert_contexts(self) -> None:
        """Whole context texts of a store written before chunking: stored again as chunks,
        the old table dropped and the file compacted (once; a crash before the commit leaves
        the old table for the next open). Compacting waits for no reader: a store another
        process reads keeps its free pages, which the run's next writes reuse."""
        with self.transaction():
            rows = self.db.execute(f"SELECT hash, text FROM {OLD_CONTEXTS}")
            for context_hash, text in rows:
                self._put_context(context_hash, text)
            self.db.execute(f"DROP TABLE {OLD_CONTEXTS}")
        try:
            self.db.execute("VACUUM")
        except sqlite3.OperationalError:  # another connection is reading: the pages stay free
            pass

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @contextmanager
    def read_transaction(self) -> Iterator[None]:
        """One consistent view of the store for the reads inside (or the open transaction's)."""
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

    # files -----------------------------------------------------------------
    def file_status(self, sha256: str) -> str | None:
        row = self.db.execute("SELECT status FROM files WHERE sha256=?", (sha256,)).fetchone()
        return row[0] if row else None

    def put_file(
        self,
        sha256: str,
        path: str,
        status: str,
        reason: str = "",
        info: dict[str, Any] | None = None,
        document: Document | None = None,
    ) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?)",
            (
                sha256,
                path,
                status,
                reason,
                json.dumps(info or {}, sort_keys=True),
                document.model_dump_json() if document else None,
            ),
        )

    def files(self, status: str | None = None) -> list[dict[str, Any]]:
        query = "SELECT sha256, path, status, reason, info FROM files"
        args: tuple[str, ...] = ()
        if status:
            query += " WHERE status=?"
            args = (status,)
        rows = self.db.execute(query + " ORDER BY path", args).fetchall()
        return [
            {"sha256": s, "path": p, "status": st, "reason": r, "info": json.loads(i)}
            for s, p, st, r, i in rows
        ]

    def document(self, sha256: str) -> Document | None:
        row = self.db.execute("SELECT document FROM files WHERE sha256=?", (sha256,)).fetchone()
        return Document.model_validate_json(row[0]) if row and row[0] else None

    def documents(self) -> Iterator[Document]:
        for (body,) in self.db.execute(
            "SELECT document FROM files WHERE document IS NOT NULL AND status = 'done' "
            "ORDER BY path"
        ).fetchall():
            yield Document.model_validate_json(body)

    def output_documents(self, candidates: Iterable[CandidateRow]) -> Iterator[Document]:
        """The processed documents as the outputs read them (`output_document`), path order;
        one stored document is decoded at a time."""
        asked: dict[str, set[str]] = {}
        for row in candidates:
            asked.setdefault(row.candidate.file_sha, set()).add(row.candidate.artifact_id)
        for sha256, body in self.db.execute(
            "SELECT sha256, document FROM files WHERE document IS NOT NULL AND status = 'done' "
            "ORDER BY path"
        ):
            yield output_document(json.loads(body), asked.get(sha256, set()))

    # candidates and decisions ---------------------------------------------
    def put_candidate(self, candidate: Candidate, seq: int) -> bool:
        """Insert a candidate; False when it is already stored (nothing is duplicated)."""
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO candidates (id, file_sha, seq, body) VALUES (?,?,?,?)",
            (candidate.id, candidate.file_sha, seq, candidate.model_dump_json()),
        )
        return cursor.rowcount == 1

    def has_candidate(self, candidate_id: str) -> bool:
        row = self.db.execute("SELECT 1 FROM candidates WHERE id=?", (candidate_id,)).fetchone()
        return row is not None

    def next_seq(self, file_sha: str) -> int:
        """The position after a file's last stored candidate (candidates added later go there)."""
        (seq,) = self.db.execute(
            "SELECT COALESCE(MAX(seq), -1) + 1 FROM candidates WHERE file_sha=?", (file_sha,)
        ).fetchone()
        return int(seq)

    def set_status(
        self, candidate_id: str, status: str, rejected_by: str = "", reason: str = ""
    ) -> None:
        """Set the final status; a groundedness verdict is also kept as `ground_status`."""
        self.db.execute(
            "UPDATE candidates SET status=?, rejected_by=?, reason=? WHERE id=?",
            (status, rejected_by, reason, candidate_id),
        )

    def set_ground_status(
        self, candidate_id: str, status: str, rejected_by: str = "", reason: str = ""
    ) -> None:
        self.db.execute(
            "UPDATE candidates SET status=?, ground_status=?, rejected_by=?, reason=? WHERE id=?",
            (status, status, rejected_by, reason, candidate_id),
        )

    def reset_run_wide(self, check: str) -> None:
        """Undo a run-wide step (e.g. de-duplication) before it is computed again."""
        self.db.execute(
            "UPDATE candidates SET status=ground_status, rejected_by='', reason='' "
            "WHERE rejected_by=?",
            (check,),
        )
        self.clear_decisions(check)

    def candidates(
        self, file_sha: str | None = None, status: str | None = None
    ) -> list[CandidateRow]:
        """(candidate, status, rejected_by, reason) of processed files, in stable order."""
        query = CANDIDATE_ROWS
        args: list[str] = []
        if file_sha:
            query += " AND c.file_sha=?"
            args.append(file_sha)
        if status:
            query += " AND c.status=?"
            args.append(status)
        rows = self.db.execute(query + CANDIDATE_ORDER, args).fetchall()
        candidates = parse_candidates([body for body, _, _, _ in rows])
        return [
            CandidateRow(candidate, st, by, reason)
            for candidate, (_, st, by, reason) in zip(candidates, rows, strict=True)
        ]

    def add_decision(self, decision: Decision, context_text: str | None = None) -> None:
        (count,) = self.db.execute(
            "SELECT COUNT(*) FROM decisions WHERE candidate_id=?", (decision.candidate_id,)
        ).fetchone()
        self.db.execute(
            "INSERT INTO decisions VALUES (?,?,?)",
            (decision.candidate_id, count, decision.model_dump_json()),
        )
        if context_text is not None:
            self._put_context(decision.context_hash, context_text)

    def _put_context(self, context_hash: str, text: str) -> None:
        """A context text under its hash, unless stored; only chunks not stored yet are added."""
        if self.db.execute("SELECT 1 FROM context_texts WHERE hash=?", (context_hash,)).fetchone():
            return
        packed = context_chunks.pack(text)
        missing = [
            key
            for key in packed.chunks
            if not self.db.execute("SELECT 1 FROM context_chunks WHERE digest=?", (key,)).fetchone()
        ]
        self.db.executemany("INSERT INTO context_chunks VALUES (?,?)", packed.compressed(missing))
        self.db.execute("INSERT INTO context_texts VALUES (?,?)", (context_hash, packed.index))

    def forget_decisions(self, candidate_id: str) -> None:
        """Drop a candidate's decisions (before its checks are run again)."""
        self.db.execute("DELETE FROM decisions WHERE candidate_id=?", (candidate_id,))

    def clear_decisions(self, check_prefix: str) -> None:
        self.db.execute(
            "DELETE FROM decisions WHERE json_extract(body, '$.check') LIKE ?",
            (check_prefix + "%",),
        )

    def decisions(self, candidate_id: str) -> list[Decision]:
        return [
            Decision.model_validate_json(body)
            for (body,) in self.db.execute(
                "SELECT body FROM decisions WHERE candidate_id=? ORDER BY seq", (candidate_id,)
            ).fetchall()
        ]

    def decisions_by_candidate(self) -> dict[str, tuple[Decision, ...]]:
        """Every decision on a candidate of a processed file, grouped per candidate, in order."""
        grouped: dict[str, list[Decision]] = {}
        for candidate_id, body in self.db.execute(
            "SELECT d.candidate_id, d.body FROM decisions d "
            "JOIN candidates c ON c.id = d.candidate_id "
            "JOIN files f ON f.sha256 = c.file_sha WHERE f.status = 'done' "
            "ORDER BY d.candidate_id, d.seq"
        ).fetchall():
            grouped.setdefault(candidate_id, []).append(Decision.model_validate_json(body))
        return {candidate_id: tuple(found) for candidate_id, found in grouped.items()}

    def context(self, context_hash: str) -> str | None:
        """The context text stored under `context_hash` (None: not stored)."""
        row = self.db.execute(
            "SELECT chunks FROM context_texts WHERE hash=?", (context_hash,)
        ).fetchone()
        return context_chunks.unpack(row[0], self._chunk) if row else None

    def _chunk(self, key: bytes) -> bytes | None:
        row = self.db.execute("SELECT data FROM context_chunks WHERE digest=?", (key,)).fetchone()
        return row[0] if row else None

    # run metadata ---------------------------------------------------------
    def set_meta(self, key: str, value: Any) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?,?)", (key, json.dumps(value)))

    def meta(self, key: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def all_meta(self) -> dict[str, Any]:
        return {
            key: json.loads(value) for key, value in self.db.execute("SELECT key, value FROM meta")
        }

    # model calls ------------------------------------------------------------
    def model_call(self, key: str) -> dict[str, Any] | None:
        """A recorded model call: request, response and usage decoded from JSON."""
        row = self.db.execute(
            "SELECT key, stage, model, request, response, usage, error FROM model_calls "
            "WHERE key=?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        key, stage, model, request, response, usage, error = row
        return {
            "key": key,
            "stage": stage,
            "model": model,
            "request": json.loads(request),
            "response": json.loads(response) if response else None,
            "usage": json.loads(usage),
            "error": error,
        }

    def put_model_call(
        self,
        key: str,
        stage: str,
        model: str,
        request: dict[str, Any],
        response: dict[str, Any] | None,
        usage: dict[str, Any],
        error: str = "",
    ) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO model_calls VALUES (?,?,?,?,?,?,?)",
            (
                key,
                stage,
                model,
                json.dumps(request, sort_keys=True, ensure_ascii=False),
                json.dumps(response, sort_keys=True, ensure_ascii=False) if response else "",
                json.dumps(usage, sort_keys=True),
                error,
            ),
        )

    def model_call_usage(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(stage, model, usage) of every recorded call that got a response."""
        rows = self.db.execute(
            "SELECT stage, model, usage FROM model_calls WHERE response != '' ORDER BY key"
        ).fetchall()
        return [(stage, model, json.loads(usage)) for stage, model, usage in rows]

    def model_call_records(self) -> dict[str, ModelCallRecord]:
        """Every recorded model call without its request and response, in key order."""
        rows = self.db.execute(
            "SELECT key, stage, model, error, response != '', usage FROM model_calls ORDER BY key"
        ).fetchall()
        return {
            key: ModelCallRecord(stage, model, error, bool(answered), json.loads(usage))
            for key, stage, model, error, answered, usage in rows
        }

    # the whole run ----------------------------------------------------------
    def snapshot(self, decisions: bool = True) -> RunSnapshot:
        """Everything the outputs and the report read (decisions only if asked for), one query
        per table in one read transaction, so a writer committing meanwhile cannot part
        candidates from decisions."""
        with self.read_transaction(), collector_paused():
            candidates = tuple(self.candidates())
            return RunSnapshot(
                candidates=candidates,
                decisions=self.decisions_by_candidate() if decisions else None,
                documents=tuple(self.output_documents(candidates)),
                files=tuple(self.files()),
                meta=self.all_meta(),
                model_calls=self.model_call_records(),
            )


@contextmanager
def snapshot_of(run: RunStore | RunSnapshot, decisions: bool = True) -> Iterator[RunSnapshot]:
    """The snapshot itself, or one read from the store (with decisions if asked for) that lives
    only inside the block, with the cyclic collector paused: were it enabled while the snapshot
    lives, its next passes would walk every object the snapshot holds."""
    if isinstance(run, RunSnapshot):
        yield run
        return
    with collector_paused():
        yield run.snapshot(decisions)


def open_store(out: Path) -> RunStore:
    """The run store of the output folder `out`."""
    return RunStore(out / STORE_NAME)
