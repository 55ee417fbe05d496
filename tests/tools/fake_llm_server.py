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
  script            a scripted model that calls tools: /case/script/<NAME>/<anything>/...
                    replays --scripts DIR/<NAME>.json (read at each request), see
                    case_script below; streamed or whole
  proxy             the request sent on to --upstream URL + "/chat/completions" (its
                    body, Content-Type and Authorization), and the upstream's status,
                    Content-Type and body sent back whole: logs what a client sends
                    to another server

With --cors, every answer allows requests from any page (as a browser needs to
ask from cookgraph.html: Access-Control-Allow-Origin, and OPTIONS preflights
answered 204), except under paths holding "/no-cors/"; preflights are logged
with "method": "OPTIONS".
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
import urllib.error
import urllib.parse
import urllib.request

ANSWER = ["Hel", "lo, wor", "ld!"]  # "Hello, world!"
USAGE = {"prompt_tokens": 12, "completion_tokens": 4, "total_tokens": 16}

counts = {}
counts_lock = threading.Lock()
scripts_dir = None  # --scripts
upstream = None  # --upstream
cors = False  # --cors
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

    def cors_allowed(self):
        return cors and "/no-cors/" not in self.path

    def end_headers(self):
        if self.cors_allowed():
            self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def do_OPTIONS(self):
        if log_file:
            with log_lock:
                log_file.write(json.dumps({"method": "OPTIONS", "path": self.path, "headers": {
                    k.lower(): v for k, v in self.headers.items()}}) + "\n")
                log_file.flush()
        if not self.cors_allowed():
            self.send_text(405, "no", "text/plain")
            return
        self.send_response(204)
        self.send_header("Access-Control-Allow-Methods", "POST")
        self.send_header("Access-Control-Allow-Headers", "authorization, content-type, api-key")
        self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.end_headers()

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

    def stream_now(self, events):
        """Each event its own HTTP chunk, flushed, without the pauses of stream()."""
        self.start_stream()
        for event in events:
            self.write_bytes(event.encode())
        self.end_stream()

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
        self.raw_body = raw
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

    # --- script: a scripted model that calls tools ----------------------------
    # A script, DIR/<NAME>.json:
    #   {"turns": [{"match": "substring of the question",
    #               "calls": [[{"name": "node", "arguments": {"id": "/a"}}, ...],  # round 1
    #                         [...]],                                                   # round 2
    #               "answer": "text"}]}
    # The question is what follows the last "Question: " of the last user message
    # that holds one (advisor/prompt.cc ends the data message with it); the first
    # turn whose "match" it contains is played. While the request offers "tools"
    # and the messages after that user message hold fewer assistant messages
    # with tool calls (rounds) than the turn has, the reply is the next round's
    # calls: ids "call_<turn>_<round>_<i>" (from 1), finish_reason "tool_calls",
    # each call's arguments (an object sent as compact JSON, or a string sent as
    # it is) streamed in three pieces. Otherwise, or without tools (a model that
    # has none), the reply is the answer. No turn matching: HTTP 422.
    def case_script(self, body, count):
        parts = urllib.parse.urlsplit(self.path).path.split("/")
        name = parts[3] if len(parts) > 4 else ""
        if not scripts_dir or not name or name.startswith("."):
            self.error_object(422, "the script case needs --scripts DIR and /case/script/NAME/...",
                              "invalid_request_error")
            return
        try:
            with open(os.path.join(scripts_dir, name + ".json"), encoding="utf-8") as f:
                script = json.load(f)
        except (OSError, ValueError) as e:
            self.error_object(422, "script %s: %s" % (name, e), "invalid_request_error")
            return
        messages = body.get("messages") or []
        last_user = None
        for i, m in enumerate(messages):
            if m.get("role") == "user" and "Question: " in (m.get("content") or ""):
                last_user = i
        if last_user is None:
            self.error_object(422, "script %s: no user message holds \"Question: \"" % name,
                              "invalid_request_error")
            return
        content = messages[last_user]["content"]
        question = content[content.rfind("Question: ") + len("Question: "):].strip()
        turn = next((t for t, step in enumerate(script.get("turns", []))
                     if step.get("match", "") in question), None)
        if turn is None:
            self.error_object(422, "script %s: no turn matches the question %r" % (name, question),
                              "invalid_request_error")
            return
        step = script["turns"][turn]
        rounds = step.get("calls") or []
        done = sum(1 for m in messages[last_user + 1:]
                   if m.get("role") == "assistant" and m.get("tool_calls"))
        if body.get("tools") and done < len(rounds):
            self.tool_calls(body, turn + 1, done + 1, rounds[done])
        else:
            self.answer(body, step.get("answer", ""))

    def tool_calls(self, body, turn, round_, calls):
        made = []
        for i, call in enumerate(calls, 1):
            arguments = call.get("arguments", {})
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
            made.append({"id": "call_%d_%d_%d" % (turn, round_, i), "type": "function",
                         "function": {"name": call["name"], "arguments": arguments}})
        if not body.get("stream"):
            result = completion()
            result["choices"][0]["message"] = {"role": "assistant", "content": None,
                                               "tool_calls": made}
            result["choices"][0]["finish_reason"] = "tool_calls"
            self.send_json(200, result)
            return
        events = [chunk({"role": "assistant", "content": None})]
        for index, call in enumerate(made):
            # The id, type and name first, then the arguments in three pieces
            # that the client must join by index.
            events.append(chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                                 "function": {"name": call["function"]["name"],
                                                              "arguments": ""}}]}))
            arguments = call["function"]["arguments"]
            cuts = [0, len(arguments) // 3, 2 * len(arguments) // 3, len(arguments)]
            for a, b in zip(cuts, cuts[1:]):
                events.append(chunk({"tool_calls": [{"index": index,
                                                     "function": {"arguments": arguments[a:b]}}]}))
        events.append(chunk({}, "tool_calls"))
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append("data: " + json.dumps({"id": "chatcmpl-fake", "choices": [], "usage": USAGE}) + "\n\n")
        events.append("data: [DONE]\n\n")
        self.stream_now(events)

    def answer(self, body, text):
        if not body.get("stream"):
            self.send_json(200, completion(text))
            return
        events = [chunk({"role": "assistant", "content": ""})]
        events += [chunk({"content": text[i:i + 7]}) for i in range(0, len(text), 7)]
        events.append(chunk({}, "stop"))
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append("data: " + json.dumps({"id": "chatcmpl-fake", "choices": [], "usage": USAGE}) + "\n\n")
        events.append("data: [DONE]\n\n")
        self.stream_now(events)

    def case_proxy(self, body, count):
        if not upstream:
            self.error_object(422, "the proxy case needs --upstream URL", "invalid_request_error")
            return
        length = len(self.raw_body)
        headers = {"Content-Type": self.headers.get("Content-Type") or "application/json",
                   "Content-Length": str(length)}
        if self.headers.get("Authorization"):
            headers["Authorization"] = self.headers["Authorization"]
        request = urllib.request.Request(upstream.rstrip("/") + "/chat/completions",
                                         data=self.raw_body, headers=headers, method="POST")
        try:
            # No proxy from the environment: the upstream is a local server.
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            with opener.open(request, timeout=60) as r:
                status, kind, data = r.status, r.headers.get("Content-Type"), r.read()
        except urllib.error.HTTPError as e:
            status, kind, data = e.code, e.headers.get("Content-Type"), e.read()
        except OSError as e:
            self.error_object(502, "upstream %s: %s" % (upstream, e))
            return
        self.send_response(status)
        self.send_header("Content-Type", kind or "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

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
    global log_file, scripts_dir, upstream, cors
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log", help="append one JSON line per request to this file")
    parser.add_argument("--lifetime", type=float, default=300, help="seconds before exiting (max 300)")
    parser.add_argument("--tls-cert", help="serve HTTPS with this certificate (PEM)")
    parser.add_argument("--tls-key", help="the certificate's private key (PEM)")
    parser.add_argument("--scripts", help="the folder of the script case's NAME.json files")
    parser.add_argument("--upstream", help="the proxy case's server: a base URL (.../v1)")
    parser.add_argument("--cors", action="store_true", help="allow requests from any page")
    args = parser.parse_args()
    cors = args.cors
    scripts_dir = args.scripts
    upstream = args.upstream
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
