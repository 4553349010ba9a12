"""SIGKILL of each party of a pinshard serve session at random points, and what is left afterwards.

Parties: the server (the JVM), the client (a Python process in pinshard.serve()), the launcher (./pinshard's pid,
killed early, while it may still be bash), and a Python parent that started the server for a client in another
process. After each kill: within 5 s no process with the ring in its command line runs, and nothing of the ring
(the ring, its temporary name) is in /dev/shm. At the end one `./pinshard --version` start, then no temporary file
in the class-data-sharing cache. Prints one JSON line per kill and a summary; exits 1 on any leftover.

Usage: kill_parties.py REPO DATASET POINTS_PER_PARTY SEED  (HOME is the test's own)
"""

import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid

REPO, DATASET, POINTS, SEED = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, os.path.join(REPO, "python"))
SHM = "/dev/shm"
LAUNCHER = os.path.join(REPO, "pinshard")
OPTIONS = ", batch=4, crop=16, workers=1, seed=1"

CLIENT = """
import sys, time; sys.path.insert(0, %(python)r)
import pinshard
with pinshard.serve(%(dataset)r, ring=%(ring)r%(options)s) as ring:
    print("attached", flush=True)
    epoch = 0
    while True:
        for images, labels in ring.epoch(epoch):
            pass
        epoch += 1
"""

PARENT = """
import subprocess, sys, time; sys.path.insert(0, %(python)r)
import pinshard
server = pinshard.serve(%(dataset)r, ring=%(ring)r, attach=False%(options)s)
client = subprocess.Popen([sys.executable, "-c", %(client)r])
print("started %%d" %% client.pid, flush=True)
client.wait()
"""

ATTACHED_CLIENT = """
import sys; sys.path.insert(0, %(python)r)
import pinshard
try:
    with pinshard.Ring(%(ring)r) as ring:
        epoch = 0
        while True:
            for images, labels in ring.epoch(epoch):
                pass
            epoch += 1
except pinshard.RingError as e:
    sys.exit(0)  # the server went: what a client should see
"""


def with_ring(ring):
    """pids of the live processes whose command line names the ring."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                line = f.read()
            with open("/proc/%s/stat" % pid, "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if ring.encode() in line and state not in (b"Z", b"X"):
            found.append(int(pid))
    return found


def is_python(pid):
    try:
        return "python" in os.path.basename(os.readlink("/proc/%d/exe" % pid))
    except OSError:
        return False


def left_in_shm(ring):
    name = os.path.basename(ring)
    return sorted(n for n in os.listdir(SHM) if n.startswith(name))


def java_pid(ring):
    for pid in with_ring(ring):
        try:
            if os.readlink("/proc/%d/exe" % pid).endswith("/java"):
                return pid
        except OSError:
            pass
    return None


def kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_party(party, delay):
    ring = os.path.join(SHM, "pinshard-kill-%s.ring" % uuid.uuid4().hex[:12])
    values = {"python": os.path.join(REPO, "python"), "dataset": DATASET, "ring": ring, "options": OPTIONS}
    started = time.monotonic()
    others = []
    if party == "launcher":
        victim = subprocess.Popen([LAUNCHER, "serve", DATASET, "--ring", ring, "--json", "--batch", "4", "--crop",
                                   "16", "--workers", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        kill(victim.pid)
        victim.wait()
    elif party in ("client", "server"):
        client = subprocess.Popen([sys.executable, "-c", CLIENT % values], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        others.append(client)
        time.sleep(delay)
        if party == "client":
            kill(client.pid)
        else:
            pid = java_pid(ring)
            if pid is not None:
                kill(pid)
            else:
                kill(client.pid)  # the server is not up yet: the point falls on its start, through the client
    else:  # python parent
        values["client"] = ATTACHED_CLIENT % values
        parent = subprocess.Popen([sys.executable, "-c", PARENT % values], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        others.append(parent)
        time.sleep(delay)
        kill(parent.pid)
    # The session's JVM and the ring's reaper go within 5 s and take the ring with them; a Python client of the
    # ring (one the killed parent started) must then exit too once it sees the server gone, which may take as long
    # as its `import torch` (seconds on a loaded machine): it gets 30 s.
    # Clean means clean twice, 0.5 s apart: a launcher the killed client had just forked can still exec a JVM
    # (which then sees its owner dead and stops).
    deadline = time.monotonic() + 5.0
    clean_since = None
    while time.monotonic() < deadline:
        if [p for p in with_ring(ring) if not is_python(p)] or left_in_shm(ring):
            clean_since = None
        elif clean_since is None:
            clean_since = time.monotonic()
        elif time.monotonic() - clean_since >= 0.5:
            break
        time.sleep(0.02)
    result = {"party": party, "delay_s": round(delay, 3),
              "processes_left": [p for p in with_ring(ring) if not is_python(p)], "shm_left": left_in_shm(ring),
              "clean_after_s": round(time.monotonic() - started - delay, 2)}
    deadline = time.monotonic() + 30.0
    while time.monotonic() < deadline and with_ring(ring):
        time.sleep(0.05)
    result["clients_left"] = with_ring(ring)
    result["processes_left"] += result["clients_left"]
    for pid in result["processes_left"]:
        if os.environ.get("KILL_PARTIES_JSTACK") and java_pid(ring) == pid:
            subprocess.run(["jstack", str(pid)], stdout=sys.stderr)
        kill(pid)
    for name in result["shm_left"]:
        try:
            os.unlink(os.path.join(SHM, name))
        except OSError:
            pass
    for other in others:
        other.kill()
        other.wait()
    return result


def main():
    rng = random.Random(SEED)
    # One start first, so later starts map the archive it leaves (as a user's second run does) and the points
    # fall on a start-up of the usual length.
    subprocess.run([LAUNCHER, "--version"], stdout=subprocess.DEVNULL, check=True)
    # Calibration: how long a session takes from start to its first batch here and now; kill points are drawn over
    # that and 2 s of streaming after it, so they fall on start-up, attach and steady state alike.
    ring = os.path.join(SHM, "pinshard-kill-%s.ring" % uuid.uuid4().hex[:12])
    began = time.monotonic()
    calibration = subprocess.Popen([sys.executable, "-c", CLIENT % {"python": os.path.join(REPO, "python"),
                                    "dataset": DATASET, "ring": ring, "options": OPTIONS}], stdout=subprocess.PIPE)
    calibration.stdout.readline()
    attach_s = time.monotonic() - began
    calibration.terminate()
    calibration.wait()
    failures = []
    window = attach_s + 2.0
    windows = {"launcher": 1.0, "server": window, "client": window, "parent": window}
    print(json.dumps({"attach_s": round(attach_s, 2), "window_s": round(window, 2)}), flush=True)
    parties = [p for p in os.environ.get("KILL_PARTIES", "server,client,launcher,parent").split(",")
               for _ in range(POINTS)]
    rng.shuffle(parties)
    for party in parties:
        result = run_party(party, rng.uniform(0.0, windows[party]))
        print(json.dumps(result), flush=True)
        if result["processes_left"] or result["shm_left"]:
            failures.append(result)
    subprocess.run([LAUNCHER, "--version"], stdout=subprocess.DEVNULL, check=True)
    cds = os.path.join(os.environ["HOME"], ".cache", "pinshard", "cds")
    temporaries = sorted(n for n in os.listdir(cds) if n.endswith(".tmp") or n.endswith(".discard"))
    print(json.dumps({"kills": len(parties), "failures": len(failures), "cds_temporaries": temporaries}))
    return 1 if failures or temporaries else 0


if __name__ == "__main__":
    sys.exit(main())
