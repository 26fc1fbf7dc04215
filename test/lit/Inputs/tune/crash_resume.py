"""Kills ktune-tune with SIGKILL in the middle of a run, tears the journal's
last line as a kill during a write would, reruns the same command, and checks
that the run completes with no evaluation repeated and the same outcome as an
uninterrupted run.

usage: crash_resume.py KTUNE_TUNE T4_FILE T1_FILE WORKDIR
"""
import json
import os
import signal
import subprocess
import sys
import time

BUDGET = 60


def command(tool, t4, t1, journal, out, delay):
    cmd = [tool, "--simulate", t4, "--space", t1, "--strategy", "random",
           "--budget", str(BUDGET), "--seed", "9", "--journal", journal,
           "--out", out, "-q"]
    if delay:
        cmd += ["--simulate-delay-ms", str(delay)]
    return cmd


def evaluations(journal):
    out = []
    with open(journal) as f:
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e["phase"] != "retime":
                out.append(json.dumps(e["key"], sort_keys=True))
    return out


def main():
    tool, t4, t1, work = sys.argv[1:5]
    journal = os.path.join(work, "crash.jsonl")

    # Kill it once a third of the evaluations are journaled.
    proc = subprocess.Popen(command(tool, t4, t1, journal,
                                    os.path.join(work, "crash.json"), 40))
    deadline = time.time() + 300
    while time.time() < deadline:
        if os.path.exists(journal) and len(evaluations(journal)) >= BUDGET // 3:
            break
        if proc.poll() is not None:
            print("FAIL: the run ended before it could be killed")
            return 1
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = evaluations(journal)
    if not BUDGET // 3 <= len(before) < BUDGET:
        print("FAIL: killed with %d evaluations journaled" % len(before))
        return 1
    # A write cut in half by the kill.
    with open(journal, "a") as f:
        f.write('{"key": {"template": "')

    # The same command again completes the run.
    subprocess.run(command(tool, t4, t1, journal,
                           os.path.join(work, "crash.json"), 0), check=True)
    after = evaluations(journal)
    if len(set(after)) != len(after):
        print("FAIL: an evaluation was repeated")
        return 1
    if after[:len(before)] != before:
        print("FAIL: the journal was rewritten")
        return 1

    # An uninterrupted run of the same command for comparison.
    clean = os.path.join(work, "clean.jsonl")
    subprocess.run(command(tool, t4, t1, clean,
                           os.path.join(work, "clean.json"), 0), check=True)
    if sorted(evaluations(clean)) != sorted(after):
        print("FAIL: the resumed run evaluated other configurations")
        return 1
    with open(os.path.join(work, "crash.json")) as f:
        resumed = json.load(f)
    with open(os.path.join(work, "clean.json")) as f:
        uninterrupted = json.load(f)
    if resumed["shapes"] != uninterrupted["shapes"]:
        print("FAIL: the resumed run found something else")
        return 1
    print("resumed after %d of %d evaluations; %d in all, none repeated; "
          "same result as an uninterrupted run"
          % (len(before), BUDGET, len(after)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
