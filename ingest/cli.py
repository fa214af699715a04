"""`fidelity ingest INPUT... -o OUT`: the ingest stage alone (corpus.jsonl and corpus.md)."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from fidelity.core.config import Config
from fidelity.core.llm import LLMClient
from fidelity.core.store import STORE_NAME, RunStore
from ingest.corpus import CORPUS_JSONL, ingest_corpus
from ingest.rank import LLMJudge, chat_through
from ingest.settings import IngestSettings
from ingest.unoserver_pool import close_shared_converter


def cmd_ingest(args: argparse.Namespace, config: Config) -> int:
    settings = IngestSettings.from_config(
        config,
        servers=args.servers,
        conversion_timeout=args.timeout,
        rank_top_k=args.top_k,
        word_pages_from_pdf=False if args.no_pdf_pages else None,
    )
    out = Path(args.out)
    store = client = judge = None
    if config.models.enabled:  # the ranking judge is a model; its calls go to the run store
        store = RunStore(out / STORE_NAME)
        client = LLMClient(config.models, store, out)
        judge = LLMJudge(chat_through(client), name=f"model {client.model_for('ranker')}")
    try:
        corpus = ingest_corpus(
            args.inputs,
            out,
            config,
            settings=settings,
            use_libreoffice=not args.no_libreoffice,
            judge=judge,
        )
    finally:
        if not args.no_libreoffice:
            close_shared_converter()
        if client is not None:
            print(client.finish(out))
        if store is not None:
            store.close()
    reasons = Counter(record.reason_code for record in corpus.dropped())
    detail = ", ".join(f"{code} {count}" for code, count in sorted(reasons.items()))
    print(
        f"{len(corpus.records)} files: {len(corpus.kept())} kept, "
        f"{len(corpus.dropped())} dropped{f' ({detail})' if detail else ''} "
        f"-> {Path(args.out) / CORPUS_JSONL}"
    )
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "ingest", help="discover, convert, curate and rank files; write corpus.jsonl/corpus.md"
    )
    parser.add_argument("inputs", nargs="+", type=Path)
    parser.add_argument("-o", "--out", required=True)
    parser.add_argument("--servers", type=int, help="unoservers to run in parallel")
    parser.add_argument("--timeout", type=float, help="seconds allowed per conversion")
    parser.add_argument("--top-k", type=int, help="keep the k best Word files per domain")
    parser.add_argument(
        "--no-libreoffice",
        action="store_true",
        help="do not start LibreOffice (files that need conversion are dropped)",
    )
    parser.add_argument(
        "--no-pdf-pages", action="store_true", help="Word pages from docProps/app.xml only"
    )
    parser.set_defaults(run=cmd_ingest)
