#!/bin/sh
# netlab: a small real network on one Linux machine, for fault tests and for
# measuring the MPI engine and the simulator against real links.
#
# N network namespaces (the "hosts" tetrad-nlK-0 .. tetrad-nlK-(N-1)) are
# joined by veth pairs through a bridge that lives in its own namespace
# (tetrad-nlK-sw), so nothing touches the machine's own network: traffic stays
# inside these namespaces. Host i is 10.213.K.(i+1)/24 on its interface eth0.
# Every link is shaped with tbf in both directions (host egress on eth0,
# switch egress on the switch's end), the way a star of full-duplex links is:
# the simulated cluster `sim:Nx<rate>,<latency>` has the same shape. Random
# loss, when asked for, drops that share of the packets arriving at every
# host (nftables, numgen random). Frames are 9000 bytes and receive packet
# steering is on for every veth: with 1500-byte frames two cores forward only
# ~500 Mbit/s each way, and veth + tbf reorders packets without RPS. The
# kernel here has no netem, so no delay is added: latency is the veths' own.
#
# usage: scripts/netlab.sh [-k ID] [-n N] [-r RATE] [-b BURST] [-l LOSS] COMMAND [ARGS]
#   -k ID    lab id 0-255 (default 0; $NETLAB_ID): names and subnet
#   -n N     hosts (default 2; $NETLAB_HOSTS), for `up`
#   -r RATE  tbf rate of every link and direction, e.g. 1gbit, 100mbit, or
#            none (default 1gbit; $NETLAB_RATE), for `up`
#   -b BURST tbf bucket, e.g. 256kb, 16kb, or min: the smallest that passes a
#            9000-byte frame and the rate's tick (default 256kb; $NETLAB_BURST)
#   -l LOSS  random loss in percent, e.g. 1 or 0.5 (default 0), for `up`
# commands:
#   check             exit 0 if a lab can be built here, else print why and
#                     exit 77 (the ctest skip code): needs root, ip, tc, nft
#   up                build the lab (an existing lab with this id is removed)
#   down              remove the lab (idempotent)
#   status            namespaces, addresses, qdiscs and loss rules
#   loss PERCENT      set random loss on every host (0 clears it)
#   link I down|up    take host I's link down at the switch (or back up)
#   hosts             the hosts' addresses, one a line (an mpirun hostfile)
#   exec I CMD...     run CMD inside host I
#   mpirun ARGS...    run mpirun inside host 0 with one slot on every host of
#                     the lab (rsh agent: `netlab.sh agent`), Open MPI's TCP
#                     transport on eth0 only, no core binding (every
#                     namespace looks like its own host, so Open MPI's
#                     default would bind every rank to core 0 of the one
#                     machine); ARGS are mpirun's (-np, program)
#   agent HOST CMD... the rsh agent mpirun calls: runs CMD inside HOST's
#                     namespace (HOST is a lab address)
#   run CMD...        up, run CMD, down (also on failure or interrupt)
set -eu

SELF=$(readlink -f "$0")
ID=${NETLAB_ID:-0}
HOSTS=${NETLAB_HOSTS:-2}
RATE=${NETLAB_RATE:-1gbit}
BURST=${NETLAB_BURST:-256kb}
LOSS=0
SKIP=77
MTU=9000

usage() {
  sed -n '18,44p' "$SELF" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while getopts k:n:r:b:l:h option; do
  case $option in
    k) ID=$OPTARG ;;
    n) HOSTS=$OPTARG ;;
    r) RATE=$OPTARG ;;
    b) BURST=$OPTARG ;;
    l) LOSS=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage

case $ID in '' | *[!0-9]*) echo "netlab: -k wants an id 0-255, got '$ID'" >&2; exit 2 ;; esac
case $HOSTS in '' | *[!0-9]*) echo "netlab: -n wants a number of hosts, got '$HOSTS'" >&2; exit 2 ;; esac
[ "$ID" -le 255 ] || { echo "netlab: -k wants an id 0-255, got $ID" >&2; exit 2; }
[ "$HOSTS" -ge 1 ] && [ "$HOSTS" -le 64 ] || { echo "netlab: -n wants 1-64 hosts, got $HOSTS" >&2; exit 2; }

PREFIX=tetrad-nl$ID
SWITCH=$PREFIX-sw
SUBNET=10.213.$ID

host() { echo "$PREFIX-$1"; }
address() { echo "$SUBNET.$(($1 + 1))"; }
in_host() { n=$1; shift; ip netns exec "$(host "$n")" "$@"; }
in_switch() { ip netns exec "$SWITCH" "$@"; }

# Hosts of the running lab, in order.
lab_hosts() {
  ip netns list 2>/dev/null | sed -n "s/^$PREFIX-\([0-9][0-9]*\)\( .*\)\{0,1\}$/\1/p" | sort -n
}

check() {
  why=""
  [ "$(id -u)" = 0 ] || why="needs root"
  for tool in ip tc nft; do
    command -v $tool >/dev/null 2>&1 || why="${why:+$why; }needs '$tool' (scripts/setup.sh)"
  done
  if [ -z "$why" ]; then
    probe=tetrad-nlprobe-$$
    if ip netns add $probe 2>/dev/null; then
      if ! ip netns exec $probe tc qdisc add dev lo root tbf rate 1gbit burst 64kb latency 10ms \
          2>/dev/null; then
        why="the kernel has no tbf qdisc"
      elif ! ip netns exec $probe nft add table inet probe 2>/dev/null; then
        why="the kernel has no nftables"
      fi
      ip netns del $probe 2>/dev/null || true
    else
      why="cannot create network namespaces (ip netns add failed)"
    fi
  fi
  if [ -n "$why" ]; then
    echo "netlab: SKIPPED: a lab of network namespaces $why" >&2
    return $SKIP
  fi
}

# A hexadecimal mask of every CPU, for rps_cpus.
cpu_mask() {
  n=$(nproc)
  [ "$n" -gt 32 ] && n=32
  printf '%x' $(((1 << n) - 1))
}

# The smallest tbf bucket for $RATE: one 9000-byte frame plus headers, and
# what the rate brings in one timer tick (1 ms here), whichever is larger.
min_burst() {
  awk -v r="$RATE" 'BEGIN {
    n = r + 0; u = tolower(substr(r, length(n "") + 1));
    m = (u ~ /^g/) ? 1e9 : (u ~ /^m/) ? 1e6 : (u ~ /^k/) ? 1e3 : 1;
    b = n * m / 8 / 1000; if (b < 9100) b = 9100;
    printf "%d", b }'
}

# Shapes the egress of interface $2 in namespace $1 (host or switch).
shape() {
  [ "$RATE" = none ] && return 0
  # A queue of 10 ms. The default bucket of 256 KB lets the first 256 KB of
  # a burst leave at veth speed, so transfers of a few hundred KB beat the
  # rate; smaller buckets (32 KB) cost TCP throughput at 1 Gbit/s. -b min
  # shapes small messages too (docs/fidelity.md).
  burst=$BURST
  [ "$burst" = min ] && burst=$(min_burst)
  ip netns exec "$1" tc qdisc replace dev "$2" root tbf rate "$RATE" burst "$burst" latency 10ms
}

set_loss() {
  percent=$1
  # Parts per million, so that 0.5 % works in sh arithmetic.
  ppm=$(awk -v p="$percent" 'BEGIN { if (p !~ /^[0-9]*\.?[0-9]+$/ || p > 100) exit 1;
                                     printf "%d", p * 10000 + 0.5 }') ||
    { echo "netlab: loss wants a percentage 0-100, got '$percent'" >&2; exit 2; }
  for i in $(lab_hosts); do
    in_host "$i" nft delete table inet netlab 2>/dev/null || true
    [ "$ppm" -eq 0 ] && continue
    in_host "$i" nft -f - <<EOF
table inet netlab {
  chain input {
    type filter hook input priority 0; policy accept;
    numgen random mod 1000000 < $ppm counter drop
  }
}
EOF
  done
}

down() {
  for i in $(lab_hosts); do ip netns del "$(host "$i")" 2>/dev/null || true; done
  ip netns del "$SWITCH" 2>/dev/null || true
}

up() {
  check
  down
  mask=$(cpu_mask)
  ip netns add "$SWITCH"
  in_switch ip link set lo up
  in_switch ip link add br0 type bridge
  in_switch ip link set br0 mtu $MTU up
  i=0
  while [ $i -lt "$HOSTS" ]; do
    ns=$(host $i)
    ip netns add "$ns"
    # Create the pair inside the switch, then move one end into the host.
    in_switch ip link add "p$i" mtu $MTU type veth peer name eth0 mtu $MTU netns "$ns"
    in_switch ip link set "p$i" master br0 up
    in_host $i ip link set lo up
    in_host $i ip addr add "$(address $i)/24" dev eth0
    in_host $i ip link set eth0 up
    in_host $i sh -c "echo $mask > /sys/class/net/eth0/queues/rx-0/rps_cpus"
    in_switch sh -c "echo $mask > /sys/class/net/p$i/queues/rx-0/rps_cpus"
    shape "$ns" eth0
    shape "$SWITCH" "p$i"
    i=$((i + 1))
  done
  set_loss "$LOSS"
  # Wait until every host reaches host 0 (the bridge learns addresses).
  i=1
  while [ $i -lt "$HOSTS" ]; do
    in_host $i ping -c 1 -W 2 "$(address 0)" >/dev/null ||
      { echo "netlab: host $i cannot reach host 0" >&2; down; exit 1; }
    i=$((i + 1))
  done
  echo "netlab: $HOSTS hosts $PREFIX-0..$((HOSTS - 1)) on $SUBNET.0/24, rate $RATE, burst $BURST, loss $LOSS%"
}

status() {
  hosts=$(lab_hosts)
  if [ -z "$hosts" ]; then
    echo "netlab: no lab with id $ID"
    return 1
  fi
  for i in $hosts; do
    echo "== $(host "$i") $(address "$i")"
    in_host "$i" tc qdisc show dev eth0
    in_host "$i" nft list ruleset 2>/dev/null | grep -E 'numgen|counter' || true
    in_switch ip -br link show "p$i"
  done
}

require_lab() {
  [ -n "$(lab_hosts)" ] || { echo "netlab: no lab with id $ID (run: $0 -k $ID up)" >&2; exit 1; }
}

command=$1
shift
case $command in
  check) check ;;
  up) up ;;
  down) down ;;
  status) status ;;
  loss)
    [ $# -eq 1 ] || usage
    require_lab
    set_loss "$1"
    ;;
  link)
    [ $# -eq 2 ] || usage
    require_lab
    case $2 in up | down) ;; *) usage ;; esac
    in_switch ip link set "p$1" "$2"
    ;;
  hosts)
    require_lab
    for i in $(lab_hosts); do address "$i"; done
    ;;
  exec)
    [ $# -ge 2 ] || usage
    n=$1
    shift
    exec ip netns exec "$(host "$n")" "$@"
    ;;
  agent)
    # mpirun calls: AGENT [options] HOST COMMAND...; ssh-style options are
    # not used with this agent, but skip any that come.
    while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done
    [ $# -ge 2 ] || { echo "netlab agent: usage: agent HOST COMMAND..." >&2; exit 2; }
    target=$1
    shift
    case $target in
      "$SUBNET".*) n=$((${target##*.} - 1)) ;;
      *)
        # Any lab: 10.213.K.M is host M-1 of lab K.
        rest=${target#10.213.}
        [ "$rest" != "$target" ] || { echo "netlab agent: $target is not a lab address" >&2; exit 2; }
        PREFIX=tetrad-nl${rest%%.*}
        n=$((${rest#*.} - 1))
        ;;
    esac
    # Like ssh: the words form one shell command line, run with the host's
    # own name (a UTS namespace) so that MPI sees N hosts, not one.
    exec ip netns exec "$(host "$n")" unshare --uts sh -c "hostname $(host "$n"); $*"
    ;;
  mpirun)
    require_lab
    hostfile=$(mktemp /tmp/netlab-hosts.XXXXXX)
    trap 'rm -f "$hostfile"' EXIT
    for i in $(lab_hosts); do echo "$(address "$i") slots=1"; done >"$hostfile"
    # Not exec: the trap removes the hostfile afterwards.
    status=0
    ip netns exec "$(host 0)" unshare --uts sh -c 'hostname "$0"; exec "$@"' "$(host 0)" \
      mpirun --hostfile "$hostfile" \
      --mca plm_rsh_agent "$SELF agent" --mca btl tcp,self --mca btl_tcp_if_include eth0 \
      --mca oob_tcp_if_include eth0 --bind-to none "$@" || status=$?
    exit $status
    ;;
  run)
    [ $# -ge 1 ] || usage
    check || exit $?
    trap down EXIT
    trap 'exit 130' INT TERM
    up
    "$@"
    ;;
  *) usage ;;
esac
