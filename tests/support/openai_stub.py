"""A local OpenAI-compatible server for tests: scripted replies, every request recorded.

Speaks `POST .../chat/completions` (OpenAI and Azure paths), `POST /v1/files`,
`GET /v1/files/{id}/content`, `POST /v1/batches` and `GET /v1/batches/{id}`.
Replies come first from `script` (a queue of reply specs), then from `responder`
(a function of the request body). A spec is a dict: `status`, `json` (body),
`headers`, `delay` (seconds to wait before answering), and `fault` for a
misbehaving endpoint: "truncate" (a complete HTTP reply whose JSON body stops
halfway), "cut" (the body stops halfway and the connection closes), "reset" (the
connection is reset before any reply), "garbage" (a 200 whose body is not JSON).
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Spec = dict[str, Any]


def completion(content: str, prompt_tokens: int = 100, completion_tokens: int = 20) -> Spec:
    """A 200 chat completion whose message is `content`."""
    return {
        "status": 200,
        "json": {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 0,
            "model": "stub-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        },
    }


def json_reply(payload: Any, **usage: int) -> Spec:
    return completion(json.dumps(payload), **usage)


def error(status: int, message: str = "stub error", retry_after: str | None = None) -> Spec:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return {
        "status": status,
        "json": {"error": {"message": message, "type": "stub", "code": None}},
        "headers": headers,
    }


def slow(seconds: float, then: Spec) -> Spec:
    return {**then, "delay": seconds}


def faulty(fault: str, then: Spec) -> Spec:
    """`then`, broken in transit: fault is "truncate", "cut", "reset" or "garbage"."""
    return {**then, "fault": fault}


def schema_name(body: dict[str, Any]) -> str:
    """The json_schema name a chat request asks for ('' when none)."""
    response_format = body.get("response_format") or {}
    return (response_format.get("json_schema") or {}).get("name", "")


def text_of(body: dict[str, Any]) -> str:
    """All text parts of a chat request, joined."""
    out = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.extend(part.get("text", "") for part in content if part.get("type") == "text")
    return "\n".join(out)


class StubServer:
    """Run with `with StubServer(...) as stub:`; `stub.base_url` ends in /v1."""

    def __init__(self, responder: Callable[[dict[str, Any]], Spec] | None = None) -> None:
        self.responder = responder
        self.script: deque[Spec] = deque()
        self.requests: list[dict[str, Any]] = []
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["path"].split("?")[0].endswith("/chat/completions")]

    def __enter__(self) -> StubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    # replies ----------------------------------------------------------------------
    def chat_reply(self, body: dict[str, Any]) -> Spec:
        with self.lock:
            if self.script:
                return self.script.popleft()
        if self.responder is None:
            return error(500, "no scripted reply left")
        return self.responder(body)

    def _new_id(self, prefix: str, table: dict[str, Any]) -> str:
        return f"{prefix}-{len(table) + 1}"

    def create_file(self, content: bytes) -> dict[str, Any]:
        with self.lock:
            file_id = self._new_id("file", self.files)
            self.files[file_id] = content
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": 0,
            "filename": "upload.jsonl",
            "purpose": "batch",
            "status": "processed",
        }

    def create_batch(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            batch_id = self._new_id("batch", self.batches)
            batch = {
                "id": batch_id,
                "object": "batch",
                "endpoint": body["endpoint"],
                "input_file_id": body["input_file_id"],
                "completion_window": body["completion_window"],
                "status": "validating",
                "created_at": 0,
                "output_file_id": None,
                "error_file_id": None,
            }
            self.batches[batch_id] = batch
        return batch

    def poll_batch(self, batch_id: str) -> dict[str, Any]:
        """First poll: in_progress; second: completed (the results are computed then)."""
        batch = self.batches[batch_id]
        if batch["status"] == "validating":
            batch["status"] = "in_progress"
            return batch
        if batch["status"] == "in_progress":
            lines = []
            for raw in self.files[batch["input_file_id"]].decode().splitlines():
                item = json.loads(raw)
                spec = self.chat_reply(item["body"])
                lines.append(
                    json.dumps(
                        {
                            "id": f"req-{item['custom_id'][:8]}",
                            "custom_id": item["custom_id"],
                            "response": {"status_code": spec["status"], "body": spec["json"]},
                            "error": None,
                        }
                    )
                )
            batch["output_file_id"] = self.create_file("\n".join(lines).encode())["id"]
            batch["status"] = "completed"
        return batch

    # HTTP ---------------------------------------------------------------------------
    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                return

            def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None):
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _fault(self, spec: Spec) -> None:
                """Answer `spec` broken: cut short, reset, or not JSON at all."""
                data = json.dumps(spec["json"]).encode()
                self.close_connection = True
                if spec["fault"] == "reset":
                    linger = struct.pack("ii", 1, 0)  # close with RST, not FIN
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                    return
                closing = {"Connection": "close"}  # so the client does not reuse the connection
                if spec["fault"] == "garbage":
                    self._send(200, b"<html><body>502 Bad Gateway</body></html>", closing)
                    return
                if spec["fault"] == "truncate":
                    self._send(spec["status"], data[: len(data) // 2], closing)
                    return
                try:
                    self.send_response(spec["status"])
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _record(self, body: bytes) -> dict[str, Any]:
                entry: dict[str, Any] = {
                    "method": self.command,
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "raw": body,
                }
                if self.headers.get("Content-Type", "").startswith("application/json"):
                    entry["json"] = json.loads(body or b"{}")
                with stub.lock:
                    stub.requests.append(entry)
                return entry

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                entry = self._record(body)
                path = self.path.split("?")[0]
                if path.endswith("/chat/completions"):
                    spec = stub.chat_reply(entry["json"])
                    if spec.get("delay"):
                        time.sleep(spec["delay"])
                    if spec.get("fault"):
                        self._fault(spec)
                    else:
                        self._send(spec["status"], spec["json"], spec.get("headers"))
                elif path == "/v1/files":
                    header = f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode()
                    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                        header + body
                    )
                    content = b""
                    for part in message.iter_parts():
                        if part.get_filename():
                            content = part.get_payload(decode=True)
                    self._send(200, stub.create_file(content))
                elif path == "/v1/batches":
                    self._send(200, stub.create_batch(entry["json"]))
                else:
                    self._send(404, {"error": {"message": f"no route {path}"}})

            def do_GET(self) -> None:
                self._record(b"")
                parts = self.path.split("?")[0].strip("/").split("/")
                if parts[:2] == ["v1", "batches"] and len(parts) == 3:
                    self._send(200, stub.poll_batch(parts[2]))
                elif parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[3] == "content":
                    self._send(200, stub.files[parts[2]])
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

        return Handler
