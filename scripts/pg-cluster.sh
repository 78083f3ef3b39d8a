#!/usr/bin/env bash
# A PostgreSQL store that fails over, on loopback: two PostgreSQL servers under Patroni
# (a primary and a synchronous standby), one etcd for Patroni's leader key, and HAProxy in
# front, sending connections to whichever node Patroni's REST API calls the primary.
#
#   bash scripts/pg-cluster.sh start DIR [BASE_PORT]  # prints the postgres:// address (HAProxy) last
#   bash scripts/pg-cluster.sh primary DIR            # prints the name of the node that leads (n1 or n2)
#   bash scripts/pg-cluster.sh kill-primary DIR       # SIGKILLs the leader's Patroni and PostgreSQL; prints its name
#   bash scripts/pg-cluster.sh stop DIR
#
# Ports from BASE_PORT (default 55440): HAProxy BASE, PostgreSQL BASE+1 and BASE+2, Patroni's
# REST API BASE+11 and BASE+12, etcd BASE+21 (clients) and BASE+22 (peers).
#
# Patroni runs with `synchronous_mode: true`, so it never promotes a standby that may lack a
# commit the primary acknowledged, and with `ttl: 20` (its minimum): a primary that dies is
# replaced once its leader key expires, at most 20 s later, plus one loop. HAProxy checks
# `GET /primary` (200 only on the leader) every second and closes the sessions of a node
# that stops answering, so clients reconnect to the new primary. It installs Debian's
# patroni, etcd-server and haproxy when missing. As root, Patroni and PostgreSQL run as the
# `postgres` system user (PostgreSQL refuses root).
set -euo pipefail

command=${1:-}
dir=${2:-}
if [[ -z "$command" || -z "$dir" ]]; then
    echo "usage: $0 start DIR [BASE_PORT] | primary DIR | kill-primary DIR | stop DIR" >&2
    exit 2
fi
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"

as_server_user() {
    if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# The port of node N's REST API, from the saved base port.
rest_port() { echo $(( $(cat "$dir/base_port") + 10 + $1 )); }

# The node that answers 200 to GET /primary, or nothing.
leader() {
    for n in 1 2; do
        if python3 -c "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:$(rest_port $n)/primary', timeout=1).status == 200 else 1)" 2>/dev/null; then
            echo "n$n"; return
        fi
    done
}

if [[ "$command" =~ ^(primary|kill-primary|stop)$ && ! -f "$dir/base_port" ]]; then
    [[ "$command" == stop ]] && exit 0
    echo "pg-cluster: $dir holds no cluster (start one with: $0 start $dir)" >&2
    exit 1
fi

case "$command" in
start)
    base=${3:-55440}
    [[ "$base" =~ ^[0-9]+$ ]] && (( base >= 1024 && base <= 65500 )) || { echo "pg-cluster: BASE_PORT must be a number from 1024 to 65500, not '$base'" >&2; exit 2; }
    if ! command -v patroni >/dev/null || ! command -v etcd >/dev/null || ! command -v haproxy >/dev/null; then
        echo "== installing Patroni, etcd and HAProxy (Debian's patroni, etcd-server, haproxy)" >&2
        $sudo apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq patroni etcd-server haproxy >&2
        # The packages may start services of their own; ours run from DIR.
        $sudo service etcd stop >/dev/null 2>&1 || true
        $sudo service haproxy stop >/dev/null 2>&1 || true
    fi
    if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >&2
        $sudo service postgresql stop >/dev/null 2>&1 || true
    fi
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    # The nodes' folders inside belong to the server's user, who must reach them.
    if [[ $(id -u) -eq 0 ]]; then chmod 755 "$dir"; fi
    echo "$base" > "$dir/base_port"
    password=wayfare-test-password
    replication=replicator-test-password

    etcd --name wayfare --data-dir "$dir/etcd" \
        --listen-client-urls "http://127.0.0.1:$((base + 21))" --advertise-client-urls "http://127.0.0.1:$((base + 21))" \
        --listen-peer-urls "http://127.0.0.1:$((base + 22))" --initial-advertise-peer-urls "http://127.0.0.1:$((base + 22))" \
        --initial-cluster "wayfare=http://127.0.0.1:$((base + 22))" >"$dir/etcd.log" 2>&1 &
    echo $! > "$dir/etcd.pid"

    for n in 1 2; do
        mkdir -p "$dir/n$n"
        chmod 700 "$dir/n$n"
        cat > "$dir/n$n/patroni.yml" <<YAML
scope: wayfare
namespace: /wayfare/
name: n$n
restapi:
  listen: 127.0.0.1:$((base + 10 + n))
  connect_address: 127.0.0.1:$((base + 10 + n))
etcd3:
  hosts: 127.0.0.1:$((base + 21))
bootstrap:
  dcs:
    ttl: 20
    loop_wait: 2
    retry_timeout: 5
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        max_connections: 200
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
postgresql:
  listen: 127.0.0.1:$((base + n))
  connect_address: 127.0.0.1:$((base + n))
  data_dir: $dir/n$n/data
  bin_dir: $bin
  pgpass: $dir/n$n/pgpass
  authentication:
    superuser:
      username: wayfare
      password: $password
    replication:
      username: replicator
      password: $replication
    rewind:
      username: wayfare
      password: $password
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 scram-sha-256
    - host all all 127.0.0.1/32 scram-sha-256
YAML
        if [[ $(id -u) -eq 0 ]]; then chown -R postgres: "$dir/n$n"; fi
        # Node 1 first, so that it bootstraps the cluster; node 2 then clones it.
        as_server_user patroni "$dir/n$n/patroni.yml" >"$dir/n$n/patroni.log" 2>&1 &
        echo $! > "$dir/n$n/patroni.pid"
        for _ in $(seq 1 120); do
            state=$(python3 -c "import json, urllib.request; print(json.load(urllib.request.urlopen('http://127.0.0.1:$((base + 10 + n))/patroni', timeout=1)).get('state', ''))" 2>/dev/null || true)
            [[ "$state" == running ]] && break
            sleep 0.5
        done
        [[ "$state" == running ]] || { echo "pg-cluster: node n$n did not start; see $dir/n$n/patroni.log" >&2; tail -20 "$dir/n$n/patroni.log" >&2; exit 1; }
    done

    cat > "$dir/haproxy.cfg" <<CFG
global
    maxconn 400
defaults
    mode tcp
    timeout connect 2s
    timeout client 30m
    timeout server 30m
    retries 2
listen primary
    bind 127.0.0.1:$base
    option httpchk GET /primary
    http-check expect status 200
    default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
    server n1 127.0.0.1:$((base + 1)) maxconn 200 check port $((base + 11))
    server n2 127.0.0.1:$((base + 2)) maxconn 200 check port $((base + 12))
CFG
    haproxy -f "$dir/haproxy.cfg" -D -p "$dir/haproxy.pid"
    # Ready when a synchronous standby is named and HAProxy reaches the primary.
    for _ in $(seq 1 120); do
        sync=$(python3 -c "import json, urllib.request; print(any(m.get('role') == 'sync_standby' for m in json.load(urllib.request.urlopen('http://127.0.0.1:$((base + 11))/cluster', timeout=1))['members']))" 2>/dev/null || true)
        [[ "$sync" == True ]] && python3 -c "import socket; socket.create_connection(('127.0.0.1', $base), 1)" 2>/dev/null && break
        sleep 0.5
    done
    [[ "$sync" == True ]] || { echo "pg-cluster: no synchronous standby; see $dir/n*/patroni.log" >&2; exit 1; }
    echo "postgres://wayfare:$password@127.0.0.1:$base/postgres?sslmode=disable"
    ;;
primary)
    dir=$(cd "$dir" && pwd)
    leader
    ;;
kill-primary)
    dir=$(cd "$dir" && pwd)
    node=$(leader)
    [[ -n "$node" ]] || { echo "pg-cluster: no primary to kill" >&2; exit 1; }
    # The node's whole process tree: Patroni, and the postmaster with every backend (a
    # backend outlives a killed postmaster until it next waits, and would go on answering).
    postmaster=$(head -1 "$dir/$node/data/postmaster.pid" 2>/dev/null || true)
    pkill -KILL -f "patroni $dir/$node/patroni.yml" 2>/dev/null || true
    if [[ -n "$postmaster" ]]; then
        kill -STOP "$postmaster" 2>/dev/null || true   # no new backends while the old ones die
        pkill -KILL -P "$postmaster" 2>/dev/null || true
        kill -KILL "$postmaster" 2>/dev/null || true
    fi
    pkill -KILL -f -- "-D $dir/$node/data" 2>/dev/null || true
    echo "$node"
    ;;
stop)
    [[ -d "$dir" ]] || exit 0
    dir=$(cd "$dir" && pwd)
    [[ -f "$dir/haproxy.pid" ]] && kill "$(cat "$dir/haproxy.pid")" 2>/dev/null || true
    for n in 1 2; do
        pkill -TERM -f "patroni $dir/n$n/patroni.yml" 2>/dev/null || true
    done
    for _ in $(seq 1 40); do
        pgrep -f "patroni $dir/" >/dev/null || break
        sleep 0.25
    done
    for n in 1 2; do
        pkill -KILL -f "patroni $dir/n$n/patroni.yml" 2>/dev/null || true
        pkill -KILL -f -- "-D $dir/n$n/data" 2>/dev/null || true
    done
    [[ -f "$dir/etcd.pid" ]] && kill "$(cat "$dir/etcd.pid")" 2>/dev/null || true
    ;;
*)
    echo "usage: $0 start DIR [BASE_PORT] | primary DIR | kill-primary DIR | stop DIR" >&2
    exit 2
    ;;
esac
