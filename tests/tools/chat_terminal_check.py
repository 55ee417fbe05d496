#!/usr/bin/env python3
"""`ask --chat` at a terminal (docs/commands.md#conversations): line editing,
the session's history on the up arrow, and Ctrl-C stopping an answer but not
the session.

    chat_terminal_check.py COOKGRAPH SOURCE_DIR

Starts tests/tools/fake_llm_server.py, runs cookgraph on a pseudo-terminal and
types into it as a user would:
  1. "abc", Left, "X", Enter: the question sent is "abXc" (the echo-question
     case answers with the question); Up, Enter: the same question again.
  2. a question whose answer stalls for 5 s (the stall case), Ctrl-C during
     the stall: "stopped; the session goes on", then a second question is
     answered in full, and the session file holds both turns, the first one
     stopped with the text that had come.
Exit 0 when all holds, 1 when something does not (the message says what).
"""

import json
import os
import pty
import select
import subprocess
import sys
import tempfile
import time


def start_server(source, log):
    server = subprocess.Popen(
        [sys.executable, os.path.join(source, "tests/tools/fake_llm_server.py"), "--log", log],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    port = int(server.stdout.readline())
    return server, port


class Terminal:
    """cookgraph on a pseudo-terminal: what it printed, and keys typed into it."""

    def __init__(self, argv, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(argv[0], argv, env)
        self.out = b""

    def read_until(self, text, timeout):
        end = time.time() + timeout
        while text.encode() not in self.out:
            left = end - time.time()
            if left <= 0:
                raise AssertionError("waited %.0f s for %r; the terminal shows:\n%s" % (
                    timeout, text, self.out.decode("utf-8", "replace")[-2000:]))
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError("the program ended before %r; it showed:\n%s" % (
                        text, self.out.decode("utf-8", "replace")[-2000:]))
                self.out += chunk

    def type(self, keys):
        # libedit flushes what was typed before it set the terminal up: a user
        # types after seeing the prompt, and so does this, a moment later.
        time.sleep(0.3)
        os.write(self.fd, keys.encode() if isinstance(keys, str) else keys)

    def wait(self, timeout):
        end = time.time() + timeout
        while time.time() < end:
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.1)
                if ready:
                    chunk = os.read(self.fd, 65536)
                    self.out += chunk
            except OSError:
                pass
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, 9)
        raise AssertionError("the session did not end after Ctrl-D")


def questions(log):
    out = []
    with open(log, encoding="utf-8") as f:
        for line in f:
            body = json.loads(json.loads(line)["body"]) if isinstance(json.loads(line)["body"], str) \
                else json.loads(line)["body"]
            last = body["messages"][-1]["content"]
            out.append(last[last.rindex("Question: ") + len("Question: "):].rstrip("\n"))
    return out


def main():
    binary, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    example = os.path.join(source, "examples/touchdesigner_feedback.json")
    with tempfile.TemporaryDirectory() as work:
        log = os.path.join(work, "requests.jsonl")
        server, port = start_server(source, log)
        env = {"PATH": "/usr/bin:/bin", "HOME": work, "TERM": "xterm", "LANG": "C.UTF-8",
               "no_proxy": "127.0.0.1"}
        try:
            # 1. Line editing and history.
            base = "http://127.0.0.1:%d/case/echo-question/terminal1" % port
            t = Terminal([binary, "ask", example, "--chat", "--base-url", base, "--model", "m",
                          "--no-tools"], env)
            t.read_until("ask> ", 30)
            t.type("abc\x1b[DX\r")
            t.read_until("abXc", 30)
            t.read_until("ask> ", 30)
            t.type("\x1b[A\r")  # the previous question, again
            t.read_until("turn 2, request 1", 30)
            t.read_until("ask> ", 30)
            t.type("\x04")  # Ctrl-D ends the session
            code = t.wait(30)
            assert code == 0, "exit %d after Ctrl-D" % code
            asked = questions(log)
            assert asked == ["abXc", "abXc"], "questions sent: %r" % asked

            # 2. Ctrl-C stops an answer, not the session.
            session = os.path.join(work, "chat.json")
            base = "http://127.0.0.1:%d/case/stall/terminal2" % port
            t = Terminal([binary, "ask", example, "--chat", "--session", session, "--base-url",
                          base, "--model", "m", "--no-tools"], env)
            t.read_until("ask> ", 30)
            t.type("first\r")
            t.read_until("Hel", 30)  # the text before the stall
            t.type("\x03")
            start = time.time()
            t.read_until("stopped; the session goes on", 5)
            stopped_after = time.time() - start
            assert stopped_after < 2, "Ctrl-C took %.1f s to stop the answer" % stopped_after
            t.read_until("ask> ", 10)
            t.type("second\r")
            t.read_until("world!", 30)
            t.read_until("ask> ", 30)
            t.type("\x04")
            code = t.wait(30)
            assert code == 0, "exit %d after Ctrl-D" % code
            with open(session, encoding="utf-8") as f:
                saved = json.load(f)
            turns = saved["turns"]
            assert [x["question"] for x in turns] == ["first", "second"], turns
            assert turns[0]["stopped"] is True and turns[0]["answer"].startswith("Hel"), turns[0]
            assert turns[1]["stopped"] is False and turns[1]["answer"] == "Hello, world!", turns[1]
            print("chat_terminal_check: line editing, history and Ctrl-C hold "
                  "(Ctrl-C stopped the answer in %.2f s)" % stopped_after)
            return 0
        except AssertionError as e:
            print("chat_terminal_check: %s" % e)
            return 1
        finally:
            server.stdin.close()
            server.wait(10)


if __name__ == "__main__":
    sys.exit(main())
