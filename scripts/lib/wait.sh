# Waiting for a server the scripts started; sourced by them (`. scripts/lib/wait.sh`).

# served_url LOG SECONDS [PREFIX]: prints the first PREFIXhttp://127.0.0.1:PORT that LOG
# shows within SECONDS (without PREFIX); returns 1 when none appears.
served_url() {
    local log=$1 seconds=$2 prefix=${3:-} url="" _
    for _ in $(seq 1 $((seconds * 5))); do
        url=$(grep -o "${prefix}http://127.0.0.1:[0-9]*" "$log" 2>/dev/null | head -1) || true
        [ -n "$url" ] && { echo "${url#"$prefix"}"; return 0; }
        sleep 0.2
    done
    return 1
}

# wait_for_port PORT SECONDS: returns once 127.0.0.1:PORT accepts a connection, 1 after SECONDS.
wait_for_port() {
    local _
    for _ in $(seq 1 $(($2 * 5))); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 1)" 2>/dev/null && return 0
        sleep 0.2
    done
    return 1
}
