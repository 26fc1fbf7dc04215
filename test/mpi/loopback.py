#!/usr/bin/env python3
"""ktune-tune across three MPI ranks on this machine (loopback, simulated
devices): the run completes with every rank's devices, writes the journal
and results a single-host run writes (plus the rank of each evaluation), and
survives a non-zero rank killed with SIGKILL in the middle: its
configurations in flight go to the others, the loss is reported, the budget
is spent in full.

  loopback.py --mpirun mpirun --ktune-tune build/bin/ktune-tune --work DIR

Exit status: 0 when everything holds, 1 otherwise (each failure printed).
"""

import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL: " + message)
    return condition


def write_recording(path):
    """A recorded space written for this test: 6 x 4 x 4 configurations,
    fastest at block_x=128, block_y=4, unroll=2."""
    results = []
    for bx in [16, 32, 64, 128, 256, 512]:
        for by in [1, 2, 4, 8]:
            for unroll in [1, 2, 4, 8]:
                ms = (1.0 + abs(math.log2(bx) - 7) * 0.15 +
                      abs(math.log2(by) - 2) * 0.1 +
                      abs(math.log2(unroll) - 1) * 0.05)
                results.append({
                    "configuration": {"block_x": bx, "block_y": by,
                                      "unroll": unroll},
                    "invalidity": "correct",
                    "measurements": [{"name": "time", "value": ms,
                                      "unit": "ms"}]})
    with open(path, "w") as f:
        json.dump({"results": results,
                   "metadata": {"timeunit": "milliseconds"}}, f)


def journal(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def budgeted(lines):
    return [l for l in lines if l["phase"] in ("default", "search")]


def tune_args(ktune_tune, recording, out, budget, delay_ms):
    return [ktune_tune, "--simulate", recording, "--devices", "2",
            "--strategy", "random", "--seed", "3", "--budget", str(budget),
            "--simulate-delay-ms", str(delay_ms), "--out", out]


def rank_pid(rank, marker):
    """The pid of MPI rank `rank` among the processes whose command line
    holds `marker`."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmdline = f.read()
            with open("/proc/%s/environ" % pid, "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        if marker.encode() in cmdline and \
                b"OMPI_COMM_WORLD_RANK=%d" % rank in environ:
            return int(pid)
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mpirun", required=True)
    parser.add_argument("--ktune-tune", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    args.ktune_tune = os.path.abspath(args.ktune_tune)

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    os.chdir(args.work)
    recording = os.path.abspath("loopback_T4.json")
    write_recording(recording)

    env = dict(os.environ)
    # Runs as root in containers; three ranks on however many cores.
    env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    mpirun = [args.mpirun, "-np", "3", "--oversubscribe", "--bind-to", "none",
              "--enable-recovery"]

    # 1. One host, two virtual devices: the reference format.
    single = subprocess.run(
        tune_args(args.ktune_tune, recording, "single.json", 40, 0),
        capture_output=True, text=True, env=env, timeout=60)
    if not check(single.returncode == 0, "single-host run: " + single.stderr):
        return 1
    single_journal = journal("single.journal.jsonl")
    single_fields = set().union(*(l.keys() for l in single_journal))
    with open("single.json") as f:
        single_results = json.load(f)

    # 2. Three ranks, two virtual devices each.
    run = subprocess.run(
        mpirun + tune_args(args.ktune_tune, recording, "mpi.json", 40, 20),
        capture_output=True, text=True, env=env, timeout=120)
    with open("mpi.err", "w") as f:
        f.write(run.stderr)
    check(run.returncode == 0, "mpirun -np 3 exited with %d:\n%s" %
          (run.returncode, run.stderr))
    for rank in (1, 2):
        check(" joined with 2 GPU(s)" in run.stderr and
              "rank %d (" % rank in run.stderr,
              "rank %d did not join:\n%s" % (rank, run.stderr))
    if os.path.exists("mpi.journal.jsonl") and os.path.exists("mpi.json"):
        lines = journal("mpi.journal.jsonl")
        fields = set().union(*(l.keys() for l in lines))
        check(fields - single_fields == {"rank"},
              "journal fields differ from a single-host run's: %s" %
              sorted(fields ^ single_fields))
        check(all("rank" in l and "gpu" in l for l in lines),
              "an evaluation without its rank and device")
        check({l["rank"] for l in lines} == {0, 1, 2},
              "not every rank evaluated: %s" % {l["rank"] for l in lines})
        keys = [json.dumps(l["key"], sort_keys=True) for l in budgeted(lines)]
        check(len(keys) == 40 and len(set(keys)) == 40,
              "%d budgeted evaluations, %d distinct (40 expected)" %
              (len(keys), len(set(keys))))
        with open("mpi.json") as f:
            results = json.load(f)
        check(set(results) == set(single_results) and
              set(results["shapes"][0]) == set(single_results["shapes"][0]),
              "results fields differ from a single-host run's")
    else:
        check(False, "no results or journal written")

    # 3. Rank 2 killed in the middle of a longer run.
    marker = os.path.abspath("killed.json")
    proc = subprocess.Popen(
        mpirun + tune_args(args.ktune_tune, recording, marker, 90, 150),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    victim = None
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        try:
            lines = journal("killed.journal.jsonl")
        except (OSError, ValueError):
            lines = []
        if len(lines) >= 12 and any(l.get("rank") == 2 for l in lines):
            victim = rank_pid(2, marker)
            break
        time.sleep(0.1)
    if check(victim is not None, "rank 2 not found running mid-run"):
        os.kill(victim, signal.SIGKILL)
        killed_at = len(journal("killed.journal.jsonl"))
    try:
        out, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        left = subprocess.run(["ps", "-eo", "pid,stat,wchan:20,args"],
                              capture_output=True, text=True).stdout
        print("still running:\n" + "\n".join(
            l for l in left.splitlines() if marker in l or "PID" in l))
        proc.kill()
        out, err = proc.communicate()
        check(False, "the run did not finish after rank 2 was killed")
    with open("killed.err", "w") as f:
        f.write(err)
    check(proc.returncode == 0, "mpirun exited with %d after rank 2 was "
          "killed:\n%s" % (proc.returncode, err))
    check("rank 2 (" in err and " lost: " in err,
          "the loss of rank 2 was not reported:\n" + err)
    check("rank 2 GPU 0: " in err and "lost (" in err,
          "the final activity does not show rank 2 lost:\n" + err)
    if check(os.path.exists(marker), "no results after rank 2 was killed"):
        lines = journal("killed.journal.jsonl")
        keys = [json.dumps(l["key"], sort_keys=True) for l in budgeted(lines)]
        check(len(keys) == 90 and len(set(keys)) == 90,
              "%d budgeted evaluations, %d distinct (90 expected)" %
              (len(keys), len(set(keys))))
        if victim is not None:
            after = [l for l in lines[killed_at:] if l.get("rank") == 2]
            check(len(after) <= 2, "rank 2 went on evaluating after its "
                  "kill: %d evaluations" % len(after))
    print("mpi loopback: %s" % ("ok" if not FAILURES else
                                "%d failure(s)" % len(FAILURES)))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
