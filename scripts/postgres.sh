#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests and benchmarks, on loopback only.
#
#   bash scripts/postgres.sh start DIR [PORT]   # prints the postgres:// address on its last line
#   bash scripts/postgres.sh stop DIR
#
# It installs Debian's `postgresql` package when no server is installed, creates a cluster in
# DIR/data (its own folder, its own port, its own user `wayfare` with a password, listening on
# 127.0.0.1 and a socket in DIR), and starts it with TLS on, under a self-signed certificate
# for 127.0.0.1 (DIR/server.crt: a client verifies the server with it as its root). When run
# as root, the server runs as the `postgres` system user, because PostgreSQL refuses to run
# as root.
set -euo pipefail

command=${1:-}
dir=${2:-}
if [[ -z "$command" || -z "$dir" ]]; then
    echo "usage: $0 start DIR [PORT] | stop DIR" >&2
    exit 2
fi

find_bin() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}

bin=$(find_bin)
if [[ -z "$bin" ]]; then
    if [[ "$command" == stop ]]; then exit 0; fi
    echo "== installing PostgreSQL (Debian's postgresql package)" >&2
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >&2
    bin=$(find_bin)
    # The package may start a cluster of its own on 5432; ours does not need it.
    $sudo service postgresql stop >/dev/null 2>&1 || true
fi

as_server_user() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

case "$command" in
start)
    port=${3:-54329}
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ $(id -u) -eq 0 ]]; then chown postgres: "$dir"; chmod 700 "$dir"; fi
    password=wayfare-test-password
    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
        pwfile="$dir/pwfile"
        echo "$password" > "$pwfile"
        if [[ $(id -u) -eq 0 ]]; then chown postgres: "$pwfile"; fi
        as_server_user "$bin/initdb" -D "$dir/data" -U wayfare --pwfile="$pwfile" \
            --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 1; }
        rm -f "$pwfile"
    fi
    if [[ ! -f "$dir/server.crt" ]]; then
        command -v openssl >/dev/null 2>&1 || { sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
            DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq openssl >&2; }
        openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=127.0.0.1" \
            -addext "subjectAltName=IP:127.0.0.1" -keyout "$dir/server.key" -out "$dir/server.crt" >/dev/null 2>&1
        chmod 600 "$dir/server.key"
        if [[ $(id -u) -eq 0 ]]; then chown postgres: "$dir/server.key" "$dir/server.crt"; fi
        chmod 644 "$dir/server.crt"
    fi
    if ! as_server_user "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
        as_server_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key" start >/dev/null \
            || { cat "$dir/server.log" >&2; exit 1; }
    fi
    if ! as_server_user "$bin/psql" -h "$dir" -p "$port" -U wayfare -d postgres -tAc \
            "SELECT 1 FROM pg_database WHERE datname = 'wayfare'" | grep -q 1; then
        as_server_user "$bin/createdb" -h "$dir" -p "$port" -U wayfare wayfare
    fi
    echo "postgres://wayfare:$password@127.0.0.1:$port/wayfare"
    ;;
stop)
    if [[ -f "$dir/data/PG_VERSION" ]]; then
        as_server_user "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    ;;
*)
    echo "usage: $0 start DIR [PORT] | stop DIR" >&2
    exit 2
    ;;
esac
