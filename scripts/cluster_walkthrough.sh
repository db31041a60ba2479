#!/usr/bin/env bash
# README "Running on a cluster", followed step by step on this machine: start a head node, run the
# job on it, watch it, stop that head (and nothing else), start it again and resume.
#
#   scripts/cluster_walkthrough.sh JOB.yaml OUT [PORT]
#
# tests/test_cluster_docs.py runs it; the README's commands are these lines.
set -euo pipefail
JOB=${1:?usage: cluster_walkthrough.sh JOB.yaml OUT [PORT]}
OUT=${2:?usage: cluster_walkthrough.sh JOB.yaml OUT [PORT]}
PORT=${3:-6379}
LOG=$(mktemp)
HEAD_PID=
trap 'if [ -n "$HEAD_PID" ]; then kill "$HEAD_PID" 2>/dev/null || true; wait "$HEAD_PID" 2>/dev/null || true; fi; rm -f "$LOG"' EXIT

# 1. Start: the token Ray 2.60+ asks of every driver (~/.ray/auth_token, made once: other nodes and
#    drivers need the same file or RAY_AUTH_TOKEN), then a head node.
export RAY_AUTH_MODE=token
ray get-auth-token --generate > /dev/null

start_head() {
    ray start --head --block --port="$PORT" --num-cpus=2 --object-store-memory=500000000 \
        --disable-usage-stats > "$LOG" 2>&1 &
    HEAD_PID=$!    # this head's own process: stopping it stops what it started, nothing else
    timeout 120 grep -q -m1 "Ray runtime started" <(tail -F --pid="$HEAD_PID" "$LOG" 2>/dev/null)
    echo "walkthrough: head started (pid $HEAD_PID, port $PORT)"
}

stop_head() {
    # 4. Stop: SIGTERM to that `ray start --block` (a few seconds). Not `ray stop`: it stops every
    #    Ray on the machine, other users' included.
    kill "$HEAD_PID"
    wait "$HEAD_PID" || true
    echo "walkthrough: head stopped (pid $HEAD_PID)"
    HEAD_PID=
}

start_head
# 2. Run the job on it (it prints the Ray job id and the dashboard's address, or how to get one).
audit run "$JOB" --out "$OUT" --address "127.0.0.1:$PORT"
# 3. Watch: the cluster's nodes, resources and demands (the dashboard shows the same and the tasks).
#    Ray's monitor reports a few seconds after the head starts ("No cluster status" until then): a
#    run that ends sooner is watched again until the report is there (30 s at most).
for _ in $(seq 60); do
    STATUS=$(ray status --address "127.0.0.1:$PORT")
    grep -q "^Active:" <<<"$STATUS" && break
    sleep 0.5
done
echo "$STATUS"
stop_head

# 5. Resume: the same command again (after a crash, a stop, or a grown corpus); finished shards are reused.
start_head
audit run "$JOB" --out "$OUT" --address "127.0.0.1:$PORT"
stop_head
