#!/usr/bin/env python3
"""A chat-completions server for cookgraph's client tests that misbehaves on request.

Standard library only. Binds 127.0.0.1 on a free port, prints the port as its
first line on stdout, and exits when its stdin closes or after --lifetime
seconds (at most 300). With --tls-cert and --tls-key (PEM files) it speaks
HTTPS instead, handshaking in each request's own thread.

The case is chosen by the path: POST /case/<name>[/<anything>]/chat/completions.
Requests are counted per path (without the query and "/chat/completions"), so
a test that wants a fresh count adds its own segment: /case/flaky500/t1/....
With --log FILE, every request is appended to FILE as one JSON line (case,
count, path, query, lower-case headers, body, and the body's bytes as "raw")
before it is answered.

Cases:
  stream            a normal answer; streamed (keep-alives, events split mid-line
                    across writes, a multi-line data event, unknown fields,
                    "usage": null on every chunk, the usage chunk with
                    "choices": [] when asked for, [DONE]) or, with "stream":
                    false, one JSON document
  crlf              the same stream with "\\r\\n" line ends
  retry-after       429 with Retry-After: 1 on the first request, then "stream"
  flaky500          500 on the first request, then "stream"
  always500         500 every time
  no-retry          503 with x-should-retry: false
  unauthorized      401 with an OpenAI error object that echoes the key it got
  html404           404 with an HTML page
  string-error      400 with {"error": "<string>"}
  cut               some content, then the connection closes without [DONE]
  cut-early         the role chunk only, then the connection closes
  stall             some content, then silence for 5 s, then the rest
  stall-head        silence for 5 s before the response starts
  midstream-error   some content, then a chunk with an "error" object
  reasoning         "reasoning_content" and "reasoning" deltas, then content
  stream-options-400  400 naming stream_options while the request has it, else "stream"
  json-for-stream   one JSON document even when a stream was asked for
  no-done           a stream that ends cleanly after its finish reason, without [DONE]
  reset             some content, then a TCP reset (SO_LINGER {1, 0}, then close)
  drip              the normal stream one byte every 0.3 s: never idle, never done
  drip-401          a 401 whose error object comes one byte every 0.3 s
  endless           content chunks of about 1 KiB at full speed until the client
                    leaves (or 1 GiB)
  endless-error     HTTP 500 with an HTML body that never ends
  big               10 MB of content: streamed in 64 KiB chunks or, with "stream":
                    false, one JSON document
  bad-utf8          content, then a chunk whose content holds the bytes FF FE (not
                    UTF-8); with "stream": false, one JSON document holding them
  echo-key          an answer that quotes the key it got (Authorization or api-key
                    header), streamed with the key split across two chunks, or whole
  echo-key-401      401 whose message quotes the key it got (either header)
  echo-key-cut      a stream that quotes the first half of the key it got, then
                    closes the connection (no finish reason, no [DONE])
  echo-question     an answer that is the request's question (what follows the last
                    "Question: " of the last message), streamed in 7-byte pieces or whole
"""

import argparse
import http.server
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time
import urllib.parse

ANSWER = ["Hel", "lo, wor", "ld!"]  # "Hello, world!"
USAGE = {"prompt_tokens": 12, "completion_tokens": 4, "total_tokens": 16}

counts = {}
counts_lock = threading.Lock()
log_lock = threading.Lock()
log_file = None


def chunk(delta, finish=None, **extra):
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "fake",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        "usage": None,
    }
    body.update(extra)
    return "data: " + json.dumps(body) + "\n\n"


def completion(content=None, reasoning=None):
    message = {"role": "assistant", "content": "".join(ANSWER) if content is None else content}
    if reasoning:
        message["reasoning_content"] = reasoning
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": USAGE,
    }


def normal_events(include_usage):
    """The pieces of a normal stream, some of them split in the middle of a line."""
    events = [": ping\n\n", chunk({"role": "assistant", "content": ""})]
    for i, piece in enumerate(ANSWER):
        event = chunk({"content": piece}, obfuscation="x" * i)
        cut = len(event) // 2
        events += [event[:cut], event[cut:]]  # split mid-line
        events.append(": OPENROUTER PROCESSING\n\n")
    # One event whose JSON spans two "data:" lines (joined with "\n": still JSON).
    finish = {"id": "chatcmpl-fake", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
              "timings": {"predicted_ms": 1.5}}
    events.append("".join("data: " + line + "\n" for line in json.dumps(finish, indent=1).split("\n")) + "\n")
    if include_usage:
        events.append("data: " + json.dumps({"id": "chatcmpl-fake", "choices": [], "usage": USAGE}) + "\n\n")
    events.append("data: [DONE]\n\n")
    return events


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: stdout carries the port only
        pass

    # --- responses ---------------------------------------------------------
    def send_json(self, status, obj, headers=()):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def send_text(self, status, text, content_type):
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def start_stream(self, status=200, content_type="text/event-stream"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True

    def write(self, text, crlf=False):
        """One HTTP chunk, flushed, after a short pause: a separate TCP write."""
        if crlf:
            text = text.replace("\n", "\r\n")
        time.sleep(0.01)
        self.write_bytes(text.encode())

    def write_bytes(self, data):
        """One HTTP chunk of raw bytes, flushed at once."""
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_stream(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def stream(self, events, crlf=False, end=True):
        self.start_stream()
        for event in events:
            self.write(event, crlf)
        if end:
            self.end_stream()

    def error_object(self, status, message, kind="server_error", headers=()):
        self.send_json(status, {"error": {"message": message, "type": kind, "param": None,
                                          "code": None}}, headers)

    # --- requests ----------------------------------------------------------
    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        parts = url.path.split("/")
        if len(parts) < 3 or parts[1] != "case" or not url.path.endswith("/chat/completions"):
            self.send_text(404, "no such case: " + url.path, "text/plain")
            return
        name = parts[2]
        key = url.path[: -len("/chat/completions")]
        with counts_lock:
            counts[key] = counts.get(key, 0) + 1
            count = counts[key]
        record = {"case": name, "count": count, "path": url.path, "query": url.query,
                  "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body,
                  "raw": raw.decode("utf-8", "replace")}
        if log_file:
            with log_lock:
                log_file.write(json.dumps(record) + "\n")
                log_file.flush()
        handler = getattr(self, "case_" + name.replace("-", "_"), None)
        if handler is None:
            self.send_text(404, "no such case: " + name, "text/plain")
            return
        handler(body or {}, count)

    def normal(self, body, crlf=False):
        if not body.get("stream"):
            self.send_json(200, completion())
            return
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        self.stream(normal_events(include_usage), crlf)

    def case_stream(self, body, count):
        self.normal(body)

    def case_crlf(self, body, count):
        self.normal(body, crlf=True)

    def case_retry_after(self, body, count):
        if count == 1:
            self.error_object(429, "Rate limit reached for requests", "requests",
                              [("Retry-After", "1")])
        else:
            self.normal(body)

    def case_flaky500(self, body, count):
        if count == 1:
            self.error_object(500, "The server had an error while processing your request.")
        else:
            self.normal(body)

    def case_always500(self, body, count):
        self.error_object(500, "The server had an error while processing your request.")

    def case_no_retry(self, body, count):
        self.error_object(503, "Overloaded, and retrying will not help", headers=[("x-should-retry", "false")])

    def case_unauthorized(self, body, count):
        auth = self.headers.get("Authorization") or ""
        key = auth[len("Bearer "):] if auth.startswith("Bearer ") else auth
        self.send_json(401, {"error": {
            "message": "Incorrect API key provided: %s. You can find your API key at "
                       "https://platform.openai.com/account/api-keys." % key,
            "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}})

    def case_html404(self, body, count):
        self.send_text(404, "<!DOCTYPE html>\n<html>\n<head><title>404 Not Found</title></head>\n"
                            "<body>\n<center><h1>404 Not Found</h1></center>\n<hr><center>nginx</center>\n"
                            "</body>\n</html>\n", "text/html")

    def case_string_error(self, body, count):
        self.send_json(400, {"error": "model '%s' not found" % body.get("model")})

    def case_cut(self, body, count):
        self.stream(normal_events(True)[:6], end=False)

    def case_cut_early(self, body, count):
        self.stream(normal_events(True)[:2], end=False)

    def case_stall(self, body, count):
        events = normal_events(True)
        self.stream(events[:4], end=False)
        time.sleep(5)
        for event in events[4:]:
            self.write(event)
        self.end_stream()

    def case_stall_head(self, body, count):
        time.sleep(5)
        self.normal(body)

    def case_midstream_error(self, body, count):
        self.stream(normal_events(True)[:4] + [
            "data: " + json.dumps({"error": {"message": "Upstream provider overloaded", "code": 502}}) + "\n\n"])

    def case_reasoning(self, body, count):
        if not body.get("stream"):
            self.send_json(200, completion("Answer.", "Let me think."))
            return
        self.stream([chunk({"role": "assistant", "content": "", "reasoning_content": "Let me "}),
                     chunk({"content": None, "reasoning_content": "think."}),
                     chunk({"content": "", "reasoning": " More."}),
                     chunk({"content": "Answer."}),
                     chunk({}, "stop"),
                     "data: [DONE]\n\n"])

    def case_stream_options_400(self, body, count):
        if "stream_options" in body:
            self.error_object(400, "Unrecognized request argument supplied: stream_options",
                              "invalid_request_error")
        else:
            self.normal(body)

    def case_json_for_stream(self, body, count):
        self.send_json(200, completion())

    def case_no_done(self, body, count):
        self.stream(normal_events(False)[:-1])

    def case_reset(self, body, count):
        self.stream(normal_events(True)[:6], end=False)
        time.sleep(0.2)  # the client has read the content: the reset loses none of it
        # Linger on with a zero timeout: close() sends RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.rfile.close()  # the socket's last other reference, so close() is real
        self.connection.close()

    def case_drip(self, body, count):
        self.drip(200, "text/event-stream", "".join(normal_events(True)).encode())

    def case_drip_401(self, body, count):
        error = {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error"}}
        self.drip(401, "application/json", json.dumps(error).encode())

    def drip(self, status, content_type, data):
        self.start_stream(status, content_type)
        for byte in data:
            time.sleep(0.3)
            self.write_bytes(bytes([byte]))
        self.end_stream()

    def case_endless(self, body, count):
        self.start_stream()
        self.write_bytes(chunk({"role": "assistant", "content": ""}).encode())
        piece = chunk({"content": "All work and no play makes a dull answer. " * 24}).encode()
        for _ in range((1 << 30) // len(piece)):  # ends when the client leaves (BrokenPipe)
            self.write_bytes(piece)
        self.end_stream()

    def case_endless_error(self, body, count):
        self.send_response(500)
        self.send_header("Content-Type", "text/html")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.write_bytes(b"<html><head><title>500 Internal Server Error</title></head><body>")
        for _ in range((1 << 30) // 1024):  # ends when the client leaves (BrokenPipe)
            self.write_bytes(b"<p>trace</p>" * 85)
        self.end_stream()

    def case_big(self, body, count):
        text = "0123456789abcdef" * 4096  # 64 KiB
        pieces = 10_000_000 // len(text) + 1
        if not body.get("stream"):
            self.send_json(200, completion(text * pieces))
            return
        self.start_stream()
        for _ in range(pieces):
            self.write_bytes(chunk({"content": text}).encode())
        self.write_bytes(b"data: [DONE]\n\n")
        self.end_stream()

    def case_bad_utf8(self, body, count):
        if not body.get("stream"):
            data = json.dumps(completion("caf\u00e9 XX")).encode().replace(b"XX", b"\xff\xfe")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        events = normal_events(True)
        self.start_stream()
        for event in events[:8]:  # "Hel" and "lo, wor", up to an event's end
            self.write(event)
        self.write_bytes(chunk({"content": " XX"}).encode().replace(b"XX", b"\xff\xfe"))
        for event in events[6:]:
            self.write(event)
        self.end_stream()
    def received_key(self):
        auth = self.headers.get("Authorization") or ""
        return auth[len("Bearer "):] if auth.startswith("Bearer ") else self.headers.get("api-key", "")

    def case_echo_key(self, body, count):
        key = self.received_key()
        text = "Your key is " + key + ". Again: " + key + "\n"
        if not body.get("stream"):
            self.send_json(200, completion(text))
            return
        cut = len("Your key is ") + len(key) // 2  # inside the first key
        self.stream([chunk({"role": "assistant", "content": ""}), chunk({"content": text[:cut]}),
                     chunk({"content": text[cut:]}), chunk({}, "stop"), "data: [DONE]\n\n"])

    def case_echo_key_cut(self, body, count):
        key = self.received_key()
        self.stream([chunk({"role": "assistant", "content": ""}),
                     chunk({"content": "Your key is " + key[:len(key) // 2]})], end=False)

    def case_echo_question(self, body, count):
        messages = body.get("messages") or [{}]
        content = messages[-1].get("content") or ""
        text = content[content.rfind("Question: ") + len("Question: "):] if "Question: " in content else content
        if not body.get("stream"):
            self.send_json(200, completion(text))
            return
        pieces = [text[i:i + 7] for i in range(0, len(text), 7)]
        self.stream([chunk({"role": "assistant", "content": ""})] +
                    [chunk({"content": p}) for p in pieces] + [chunk({}, "stop"), "data: [DONE]\n\n"])

    def case_echo_key_401(self, body, count):
        self.error_object(401, "Incorrect API key provided: %s." % self.received_key(),
                          "invalid_request_error")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    tls = None  # an ssl.SSLContext with --tls-cert

    def finish_request(self, request, client_address):
        if self.tls is None:
            super().finish_request(request, client_address)
            return
        # Here, in the request's own thread, a slow or refusing client holds up no other.
        try:
            request = self.tls.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return  # a client that refused the certificate
        try:
            super().finish_request(request, client_address)
        finally:
            request.close()

    def handle_error(self, request, client_address):
        # A client that gave up (an idle timeout, an error mid-stream) is expected.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError, ssl.SSLError)):
            return
        super().handle_error(request, client_address)


def main():
    global log_file
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log", help="append one JSON line per request to this file")
    parser.add_argument("--lifetime", type=float, default=300, help="seconds before exiting (max 300)")
    parser.add_argument("--tls-cert", help="serve HTTPS with this certificate (PEM)")
    parser.add_argument("--tls-key", help="the certificate's private key (PEM)")
    args = parser.parse_args()
    if args.log:
        log_file = open(args.log, "a", encoding="utf-8")
    server = Server(("127.0.0.1", 0), Handler)
    if args.tls_cert:
        server.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server.tls.load_cert_chain(args.tls_cert, args.tls_key)
    print(server.server_address[1], flush=True)

    def stop_when_stdin_closes():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except OSError:
            pass
        server.shutdown()

    threading.Thread(target=stop_when_stdin_closes, daemon=True).start()
    timer = threading.Timer(min(args.lifetime, 300), server.shutdown)
    timer.daemon = True
    timer.start()
    server.serve_forever()
    os._exit(0)  # handler threads still asleep in a stall case do not hold the exit


if __name__ == "__main__":
    main()
