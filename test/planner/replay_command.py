#!/usr/bin/env python3
"""A command: planner that replays recorded replies.

  replay_command.py --scenario S.json --state STATE [--save-prompts DIR]

Reads the prompt on stdin (saved as DIR/<n>.md with --save-prompts), takes
the next step of the scenario (the step number is kept in the STATE file)
and acts it out, like replay_server.py does over HTTP:
  {"reply": "file.txt"} / {"content": "text"}  prints the text
  {"completion": "file.json"}  prints the message content of the recorded
                               chat completion
  {"status": 500, "body": ...} exits 1, the body on stderr
  {"exit": 3, "stderr": "..."} exits 3 with that on stderr
  {"sleep": 3, ...}            waits first (for timeouts)
After the last step it exits 2 ("scenario exhausted").
"""

import argparse
import json
import os
import sys
import time


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--replies", default=os.path.join(here, "replies"))
    parser.add_argument("--save-prompts")
    args = parser.parse_args()
    prompt = sys.stdin.read()
    with open(args.scenario, encoding="utf-8") as f:
        steps = json.load(f).get("steps", [])
    index = 0
    if os.path.exists(args.state):
        with open(args.state, encoding="utf-8") as f:
            index = int(f.read().strip() or "0")
    with open(args.state, "w", encoding="utf-8") as f:
        f.write(str(index + 1))
    if args.save_prompts:
        os.makedirs(args.save_prompts, exist_ok=True)
        name = "%d-round%s.md" % (index + 1,
                                  os.environ.get("KTUNE_PLANNER_ROUND", "?"))
        with open(os.path.join(args.save_prompts, name), "w",
                  encoding="utf-8") as f:
            f.write(prompt)
    if index >= len(steps):
        sys.stderr.write("replay scenario exhausted\n")
        return 2
    step = steps[index]
    if "sleep" in step:
        time.sleep(step["sleep"])

    def read(name):
        with open(os.path.join(args.replies, name), encoding="utf-8") as f:
            return f.read()

    if "exit" in step:
        sys.stderr.write(step.get("stderr", ""))
        return step["exit"]
    if "status" in step:
        sys.stderr.write("HTTP %d %s\n" % (step["status"], step.get("body", "")))
        return 1
    if "completion" in step:
        body = json.loads(read(step["completion"]))
        sys.stdout.write(body["choices"][0]["message"]["content"])
    elif "reply" in step:
        sys.stdout.write(read(step["reply"]))
    else:
        sys.stdout.write(step.get("content", ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
