#!/usr/bin/env python3
"""A loopback OpenAI chat-completions server that replays recorded replies.

Tests of ktune's openai: planner start it instead of a real model server:

  replay_server.py --scenario S.json [--log requests.jsonl]
      serves on 127.0.0.1 (a free port) and prints "PORT <port> PID <pid>"
      on stdout; runs until killed.
  replay_server.py --scenario S.json [--log F] -- <command> [args...]
      serves, runs the command with "{port}" in its arguments replaced by the
      port (also in $KTUNE_REPLAY_PORT), stops, and exits with its status.

A scenario is {"steps": [...], "models": ["name", ...]}. Each POST to
.../chat/completions takes the next step:
  {"reply": "file.txt"}        200, a chat completion whose message content
                               is the file's text (files are relative to the
                               replies directory, default ./replies beside
                               this script)
  {"content": "text"}          the same with inline text
  {"completion": "file.json"}  200 with the file as the whole body (a
                               recorded response of a real server)
  {"status": 500, "body": "...", "headers": {"Retry-After": "0"}}
                               that status and body
  {"sleep": 3, ...}            waits 3 s first (for client timeouts)
  {"close": true}              closes the connection without answering
After the last step every request gets HTTP 500 "scenario exhausted".
GET .../models lists the scenario's models (default ["replay-model"]).
Every request (method, path, headers, JSON body) is appended to --log.
"""

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def completion_body(content, model):
    return {
        "id": "chatcmpl-replay",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0,
                     "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0,
                  "total_tokens": 0},
    }


class Replay:
    def __init__(self, scenario, replies_dir, log_path):
        self.steps = list(scenario.get("steps", []))
        self.models = scenario.get("models", ["replay-model"])
        self.replies_dir = replies_dir
        self.log_path = log_path
        self.lock = threading.Lock()
        self.next = 0

    def take(self):
        with self.lock:
            if self.next >= len(self.steps):
                return None
            step = self.steps[self.next]
            self.next += 1
            return step

    def log(self, entry):
        if not self.log_path:
            return
        with self.lock:
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    def read(self, name):
        with open(os.path.join(self.replies_dir, name), encoding="utf-8") as f:
            return f.read()


def make_handler(replay):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body, headers=None):
            data = body.encode("utf-8") if isinstance(body, str) else body
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def record(self, body):
            try:
                parsed = json.loads(body) if body else None
            except ValueError:
                parsed = body.decode("utf-8", "replace")
            replay.log({"method": self.command, "path": self.path,
                        "headers": dict(self.headers.items()),
                        "body": parsed})

        def do_GET(self):
            self.record(b"")
            if self.path.rstrip("/").endswith("/models"):
                self.send(200, json.dumps(
                    {"object": "list",
                     "data": [{"id": m, "object": "model"}
                              for m in replay.models]}))
            else:
                self.send(404, json.dumps({"error": {"message": "no such path"}}))

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            self.record(body)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self.send(404, json.dumps({"error": {"message": "no such path"}}))
                return
            step = replay.take()
            if step is None:
                self.send(500, json.dumps(
                    {"error": {"message": "replay scenario exhausted"}}))
                return
            if "sleep" in step:
                time.sleep(step["sleep"])
            if step.get("close"):
                self.close_connection = True
                self.connection.shutdown(2)
                return
            try:
                model = json.loads(body).get("model", "replay-model")
            except ValueError:
                model = "replay-model"
            if "status" in step:
                self.send(step["status"], step.get("body", ""),
                          step.get("headers"))
            elif "completion" in step:
                self.send(200, replay.read(step["completion"]))
            else:
                content = (replay.read(step["reply"]) if "reply" in step
                           else step.get("content", ""))
                self.send(200, json.dumps(completion_body(content, model)))

    return Handler


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--replies", default=os.path.join(here, "replies"))
    parser.add_argument("--log")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    with open(args.scenario, encoding="utf-8") as f:
        scenario = json.load(f)
    replay = Replay(scenario, args.replies, args.log)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(replay))
    server.daemon_threads = True
    port = server.server_address[1]
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        print("PORT %d PID %d" % (port, os.getpid()), flush=True)
        server.serve_forever()
        return 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    env = dict(os.environ, KTUNE_REPLAY_PORT=str(port))
    status = subprocess.call([a.replace("{port}", str(port)) for a in command],
                             env=env)
    server.shutdown()
    return status


if __name__ == "__main__":
    sys.exit(main())
