# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the rdma_cm selftests (sourced by run_tests.sh and tests/*.sh):
# KTAP output, process control with timeouts, assertions, loading a mix of
# our and stock rdma_cm/iw_cm/rdma_ucm, and the soft-RDMA devices.
#
# Expected behaviour follows rdma-core 44 on the stock Linux 6.1 stack
# (stock-baseline.md); where the stock stack fails, the test asserts that
# failure by its text.

# shellcheck disable=SC2034	# variables used by the files sourcing this

ADDR=10.0.0.1
NETDEV=dummy0
# dummy: setup_transport creates NETDEV with ADDR; nic: NETDEV is a real
# NIC the caller configured (the two-guest topology).
NETDEV_KIND=dummy
STACK_MODS="iw_cm rdma_cm rdma_ucm"
OURS_DIR=${RDMACM_OURS_DIR:-}
# RDMACM_OURS_INSTALLED=1: our modules are installed where modprobe finds
# them first (OURS_DIR is their directory, e.g. DKMS's updates/dkms), and
# are loaded by name, as a boot would.
OURS_INSTALLED=${RDMACM_OURS_INSTALLED:-0}
# RDMACM_TIMEOUT_SCALE multiplies every timeout (decimals allowed).
TMO_PCT=$(awk -v s="${RDMACM_TIMEOUT_SCALE:-1}" 'BEGIN { printf "%d", s * 100 }')

# --- KTAP ------------------------------------------------------------------

KTAP_N=0
N_PASS=0
N_FAIL=0
N_SKIP=0

ktap_plan() { # N
	echo "KTAP version 1"
	echo "1..$1"
}

# Text usable in a KTAP description: one line, no '#'.
ktap_clean() {
	local s=${1//$'\n'/ }
	s=${s//$'\t'/ }
	echo "${s//#/ }"
}

diag() { # line...
	local l
	for l in "$@"; do
		printf '# %s\n' "$l"
	done
}

# Print FILE's last N lines as diagnostics.
diag_tail() { # FILE N [title]
	[ -s "$1" ] || return 0
	[ -n "${3:-}" ] && diag "--- $3"
	tail -n "$2" "$1" | tr -d '\r' | sed 's/^/#   /'
}

ktap_ok() { # ID [description suffix]
	KTAP_N=$((KTAP_N + 1))
	N_PASS=$((N_PASS + 1))
	if [ -n "${2:-}" ]; then
		echo "ok $KTAP_N $1 ($(ktap_clean "$2"))"
	else
		echo "ok $KTAP_N $1"
	fi
}

ktap_skip() { # ID REASON
	KTAP_N=$((KTAP_N + 1))
	N_SKIP=$((N_SKIP + 1))
	echo "ok $KTAP_N $1 # SKIP $(ktap_clean "$2")"
}

ktap_fail() { # ID [reason]
	KTAP_N=$((KTAP_N + 1))
	N_FAIL=$((N_FAIL + 1))
	if [ -n "${2:-}" ]; then
		echo "not ok $KTAP_N $1 - $(ktap_clean "$2")"
	else
		echo "not ok $KTAP_N $1"
	fi
}

ktap_totals() {
	echo "# rdma_cm selftests: $N_PASS passed, $N_FAIL failed, $N_SKIP skipped"
}

# --- running one test case ---------------------------------------------------
#
# A case is a shell function run in a subshell inside its own directory
# T_DIR.  It reports through files there: .fail (one reason per line),
# .skip (reason), .label (description suffix of an ok result), .info
# (diagnostics printed whatever the result).  Each command it starts
# writes NAME.out (and NAME.cmd holds the command line).

T_DIR=
WORK=

fail() { echo "$*" >> "$T_DIR/.fail"; }
skip() { echo "$*" > "$T_DIR/.skip"; }
label() { echo "$*" > "$T_DIR/.label"; }
info() { echo "$*" >> "$T_DIR/.info"; }
failed() { [ -s "$T_DIR/.fail" ]; }

# Emit the KTAP line of case ID whose files are in DIR; return 1 if it failed.
case_report() { # ID DIR
	local id=$1 dir=$2 f n outs=() per reason

	[ -s "$dir/.info" ] && sed 's/^/# /' "$dir/.info"
	if [ -s "$dir/.fail" ]; then
		while IFS= read -r reason; do
			diag "$id: $reason"
		done < "$dir/.fail"
		for f in "$dir"/*.out; do
			[ -s "$f" ] && outs+=("$f")
		done
		n=${#outs[@]}
		per=30
		[ "$n" -gt 1 ] && per=$((30 / n))
		[ "$per" -lt 8 ] && per=8
		for f in "${outs[@]}"; do
			n=$(basename "$f" .out)
			diag_tail "$f" "$per" "$n: $(tail -n 1 "$dir/$n.cmd" 2> /dev/null)"
		done
		diag_tail "$dir/.trace" 10 "shell trace"
		ktap_fail "$id" "$(head -n 1 "$dir/.fail")"
		return 1
	fi
	if [ -s "$dir/.skip" ]; then
		ktap_skip "$id" "$(cat "$dir/.skip")"
		return 0
	fi
	ktap_ok "$id" "$(cat "$dir/.label" 2>/dev/null)"
	return 0
}

# Run FUNC ARGS... as case ID and report it; return 1 if it failed.
run_case() { # ID FUNC [ARGS...]
	local id=$1 dir t0=$SECONDS
	shift
	dir=$WORK/$id
	rm -rf "$dir"
	mkdir -p "$dir"
	(
		T_DIR=$dir
		cd "$dir" || exit 1
		trap 'stop_all' EXIT
		"$@"
	) > "$dir/.trace" 2>&1 < /dev/null
	# Where make check's time goes (CI has 90 minutes in all).
	diag "$id took $((SECONDS - t0)) s"
	case_report "$id" "$dir"
}

# A case that cannot run: report it failed (counted) with REASON.
case_not_run() { # ID REASON
	ktap_fail "$1" "$2"
}

# --- processes ----------------------------------------------------------------
#
# bg NAME TMO CMD...: start CMD under `timeout` (TMO seconds, scaled by
# RDMACM_TIMEOUT_SCALE), line-buffered, output to NAME.out.  PID[NAME] is
# the timeout process, TPID[NAME] the command itself.  wait_bg collects
# the exit status into RC[NAME] (124: timed out).  A process that cannot
# be killed (D state) is reported and left behind rather than waited for.

declare -A PID TPID RC

tmo() { # SECONDS: scaled, at least 1
	local t
	tmo_to t "$1"
	echo "$t"
}

# tmo into VAR, without the fork of a $(tmo ...) on the hot paths.
tmo_to() { # VAR SECONDS (VAR is not _tmo_s)
	local _tmo_s=$(($2 * TMO_PCT / 100))
	((_tmo_s >= 1)) || _tmo_s=1
	printf -v "$1" %s "$_tmo_s"
}

# nap SECONDS: sleep without starting a process, as a read that times
# out on a FIFO this shell holds both ends of (nobody writes to it).
# The polling loops below run while the code under test does: under TCG
# a fork and exec of sleep(1) five times a second took guest CPU from it
# (and noise into make bench's figures).  Falls back to sleep(1) where
# no FIFO can be made.
NAP_FD=
nap_init() {
	local f

	f=$(mktemp -u "${TMPDIR:-/tmp}/rdmacm-nap.XXXXXX") &&
		mkfifo -m 600 "$f" 2> /dev/null || return 0
	exec {NAP_FD}<> "$f"
	rm -f "$f"
}
nap_init

nap() { # SECONDS
	if [ -n "$NAP_FD" ]; then
		read -r -t "$1" -u "$NAP_FD" || :
	else
		sleep "$1"
	fi
}

proc_running() { # PID
	local stat
	[ -n "$1" ] || return 1
	read -r stat 2> /dev/null < "/proc/$1/stat" || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

bg() { # NAME TMO CMD...
	local name=$1 t
	tmo_to t "$2"
	shift 2
	# a name used again (modprobe, ip ...) appends to its files
	[ -e "$name.cmd" ] || : > "$name.out"
	echo "$*" >> "$name.cmd"
	rm -f "$name.pid"
	# Under TCG every exec costs 0.1-0.3 s and a case runs hundreds of
	# commands: the pid is written by sh, not bash, and stdbuf (line
	# buffering, for output read while a program runs or after it is
	# killed) is left out for the tools that only run to completion.
	# `ip netns exec` runs any program (servers too): it keeps stdbuf.
	local lb=(stdbuf -oL -eL)
	case ${1##*/} in
	ip)
		[ "${2:-}" = netns ] && [ "${3:-}" = exec ] || lb=()
		;;
	rdma | insmod | rmmod | modprobe | mount | umount | sysctl | dd | \
	exportfs | mkdir | rm | cp)
		lb=()
		;;
	esac
	# shellcheck disable=SC2016	# $$ and $0 belong to the inner shell
	timeout -k 5 "$t" sh -c 'echo $$ > "$0"; exec "$@"' "$name.pid" \
		"${lb[@]}" "$@" >> "$name.out" 2>&1 < /dev/null &
	PID[$name]=$!
	TPID[$name]=
	RC[$name]=
}

tpid() { # NAME: pid of the command itself
	tpid_load "$1"
	echo "${TPID[$1]}"
}

# TPID[NAME] from NAME.pid once sh has written it; no subshell, so the
# polling loops keep what they read.
tpid_load() { # NAME
	local p
	if [ -z "${TPID[$1]}" ] && [ -s "$1.pid" ]; then
		read -r p < "$1.pid"
		TPID[$1]=$p
	fi
}

# "--- WHAT, state: S, wchan: W" and the kernel stack of process PID.
proc_dump() { # PID WHAT
	echo "--- $2, state: $(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)," \
		"wchan: $(cat "/proc/$1/wchan" 2>/dev/null)"
	cat "/proc/$1/stack" 2> /dev/null
}

# Report a process that does not go away, with its kernel stack.
report_stuck() { # NAME
	local p
	p=$(tpid "$1")
	fail "$1 (pid ${p:-?}) cannot be killed: stuck in the kernel?"
	if [ -n "$p" ] && [ -r "/proc/$p/stack" ]; then
		proc_dump "$p" "$1 is stuck" >> "$1.out" 2>&1
	fi
	echo "$1 pid $p" >> "$WORK/stuck"
}

# Before NAME is killed: what its devices hold then, for the post-mortem
# of a hang (a QP never flushed, an id in an odd state).
snapshot() { # NAME
	local p
	p=$(tpid "$1")
	{
		proc_dump "$p" "$1 (pid ${p:-?}) still running after its time"
		rdma res show cm_id
		rdma res show qp
		rdma statistic show
	} >> "$1.out" 2>&1
}

# Wait up to TMO (scaled) seconds for NAME to exit; RC[NAME] is set,
# 124 if it had to be killed.  Returns RC[NAME].
wait_bg() { # NAME [TMO]
	local name=$1 pid=${PID[$1]} deadline rc n=0 d=0.05
	[ -n "$pid" ] || return 255
	tmo_to deadline "${2:-60}"
	((deadline += SECONDS))
	# Most commands end within a second: look often at first.
	while proc_running "$pid"; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			snapshot "$name"
			kill_bg "$name"
			return "${RC[$name]}"
		fi
		nap "$d"
		((++n < 20)) || d=0.2
	done
	wait "$pid"
	rc=$?
	RC[$name]=$rc
	PID[$name]=
	return "$rc"
}

# Terminate NAME (if still running) and collect it.  `timeout` (without
# --foreground) leads its own process group and passes SIGTERM on to all
# of it, e.g. to pyverbs' forked passive/active processes; SIGKILL goes
# to the group as well.
kill_bg() { # NAME
	local name=$1 pid=${PID[$1]} p i
	[ -n "$pid" ] || return 0
	p=$(tpid "$name")
	if proc_running "$pid"; then
		kill -TERM "$pid" 2> /dev/null
		for i in $(seq 50); do
			proc_running "$pid" || break
			if [ "$i" = 40 ]; then
				kill -KILL -- "-$pid" 2> /dev/null
				kill -KILL "$p" "$pid" 2> /dev/null
			fi
			nap 0.2
		done
	fi
	if proc_running "$pid"; then
		report_stuck "$name"
		RC[$name]=124
		PID[$name]=
		return 0
	fi
	wait "$pid"
	RC[$name]=$?
	# a command stopped by us counts as timed out
	[ "${RC[$name]}" = 0 ] || RC[$name]=124
	PID[$name]=
}

# Stop a server that never exits by itself; its status is not judged.
stop_bg() { # NAME
	kill_bg "$1"
}

stop_all() {
	local name
	for name in "${!PID[@]}"; do
		[ -n "${PID[$name]}" ] && kill_bg "$name"
	done
}

# Run CMD in the foreground with a timeout; returns its status.
run() { # NAME TMO CMD...
	local name=$1 t=$2
	bg "$@"
	wait_bg "$name" $((t + 15))
}

# Build the test program SRC (a .c file of this directory) and link it
# as DIR/NAME.  Built once per run, in WORK/.bin: under TCG a gcc -O2 of
# cm_probe.c takes 7 s, and dozens of cases use it.
tool_build() { # NAME SRC DIR [LIBS...]
	local name=$1 src=$SELFTEST_DIR/$2 dir=$3 bin

	shift 3
	bin=${WORK:-$dir}/.bin/$name
	if ! command -v gcc > /dev/null; then
		skip "no gcc to build $name"
		return 1
	fi
	if ! [ -x "$bin" ] || [ "$src" -nt "$bin" ]; then
		mkdir -p "${bin%/*}"
		run "build-$name" 120 gcc -O2 -Wall -o "$bin.new" "$src" "$@"
		if [ "${RC[build-$name]}" != 0 ]; then
			fail "cannot build $name: $(rc_text "build-$name")"
			return 1
		fi
		mv -f "$bin.new" "$bin"
	fi
	ln -sf "$bin" "$dir/$name"
}

# Wait until NAME has opened /dev/infiniband/rdma_cm (librdmacm's event
# channel, created before bind/listen), then one more second, as the
# baseline does with `sleep 1` after starting a server.
wait_ready() { # NAME [TMO]
	local name=$1 deadline p
	tmo_to deadline "${2:-30}"
	((deadline += SECONDS))
	while [ "$SECONDS" -lt "$deadline" ]; do
		proc_running "${PID[$name]}" || break
		tpid_load "$name"
		p=${TPID[$name]}
		[ -n "$p" ] && has_rdma_cm_open "$p" && break
		nap 0.1
	done
	nap 1
}

# Whether process PID has /dev/infiniband/rdma_cm open (test -ef: the
# same device and inode, no process started).
has_rdma_cm_open() { # PID
	local f

	for f in "/proc/$1/fd/"*; do
		[ "$f" -ef /dev/infiniband/rdma_cm ] && return 0
	done
	return 1
}

# --- assertions ---------------------------------------------------------------

rc_text() { # NAME
	case ${RC[$1]} in
	124) echo "timed out (killed)" ;;
	"") echo "did not run" ;;
	*) echo "exit code ${RC[$1]}" ;;
	esac
}

expect_rc() { # NAME RC
	[ "${RC[$1]}" = "$2" ] || fail "$1: $(rc_text "$1"), expected exit code $2"
}

expect_rc_fail() { # NAME: terminated by itself with a non-zero status
	case ${RC[$1]} in
	0) fail "$1: exit code 0, expected a failure" ;;
	124|"") fail "$1: $(rc_text "$1"), expected it to fail by itself" ;;
	esac
}

expect_out() { # NAME ERE [what]
	grep -qE -- "$2" "$1.out" || fail "$1: ${3:-missing /$2/}"
}

expect_no_out() { # NAME ERE
	local l
	l=$(grep -m1 -E -- "$2" "$1.out") && fail "$1: unexpected: $l"
}

expect_count() { # NAME ERE N
	local n
	n=$(grep -cE -- "$2" "$1.out")
	[ "$n" = "$3" ] || fail "$1: $n lines /$2/, expected $3"
}

# --- client/server pairs ------------------------------------------------------

# TOTAL connections as client/server pairs of at most PER connections,
# PAR pairs at a time.  FUNC does the work of pair I with N connections:
#   FUNC server I N   start its server (bg serverI)
#   FUNC client I N   start its client, once every server of the batch
#                     is ready (bg clientI)
#   FUNC check I N    wait for both and check them
# False after the first batch with a failure.
pairs_batched() { # TOTAL PER PAR FUNC
	local total=$1 per=$2 par=$3 fn=$4 npairs b i step

	npairs=$(((total + per - 1) / per))
	for ((b = 0; b < npairs; b += par)); do
		for step in server ready client check; do
			for ((i = b; i < b + par && i < npairs; i++)); do
				if [ $step = ready ]; then
					wait_ready "server$i"
				elif [ $(((i + 1) * per)) -gt "$total" ]; then
					"$fn" $step "$i" $((total - i * per))
				else
					"$fn" $step "$i" "$per"
				fi
			done
		done
		failed && return 1
	done
	return 0
}

# --- modules ------------------------------------------------------------------

mod_present() { [ -d "/sys/module/$1" ]; }

in_list() { # WORD LIST
	case " $2 " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# The GNU build id of a loaded module (its notes in sysfs end with it) and
# of a .ko file, as hex; empty when there is none.
mod_build_id() { # NAME
	local f=/sys/module/$1/notes/.note.gnu.build-id

	[ -r "$f" ] && od -An -v -tx1 "$f" | tr -d ' \n'
}
ko_build_id() { # KO
	if [ -n "${KO_BUILD_ID[$1]+set}" ]; then
		echo "${KO_BUILD_ID[$1]}"
		return
	fi
	readelf -n "$1" 2> /dev/null | awk '/Build ID:/ { print $3; exit }'
}

# Our .ko files do not change during a run: their build ids are read
# once here, for the mod_origin calls of every case (each one a
# readelf and an awk otherwise, a second under TCG).
declare -A KO_BUILD_ID=()
ko_build_id_init() {
	local m f
	for m in $STACK_MODS; do
		f=$OURS_DIR/$m.ko
		[ -n "$OURS_DIR" ] && [ -f "$f" ] && KO_BUILD_ID[$f]=$(ko_build_id "$f")
	done
	return 0
}
ko_build_id_init

# Which of our modules is loaded: "ours", "stock" or a reason it is neither.
# The build id decides when both the loaded module and our .ko carry one
# (so an in-tree build of ours, without the out-of-tree taint, is told
# apart too); then srcversion (modpost adds it only with MODULE_VERSION
# or MODULE_SRCVERSION_ALL); otherwise the out-of-tree taint "O", which
# only our M= build gets.
mod_origin() { # NAME
	local m=$1 sys=/sys/module/$1 have='' mine='' taint=''
	[ -d "$sys" ] || { echo "not loaded"; return; }
	if [ -n "$OURS_DIR" ] && [ -f "$OURS_DIR/$m.ko" ]; then
		mine=$(ko_build_id "$OURS_DIR/$m.ko")
		have=$(mod_build_id "$m")
		if [ -n "$mine" ] && [ -n "$have" ]; then
			[[ $have == *"$mine" ]] && echo ours || echo stock
			return
		fi
	fi
	have=$(cat "$sys/srcversion" 2> /dev/null)
	taint=$(cat "$sys/taint" 2> /dev/null)
	mine=''
	if [ -n "$OURS_DIR" ] && [ -f "$OURS_DIR/$m.ko" ]; then
		mine=$(modinfo -F srcversion "$OURS_DIR/$m.ko" 2> /dev/null)
	fi
	if [ -n "$have" ] && [ -n "$mine" ]; then
		[ "$have" = "$mine" ] && echo ours || echo stock
	elif [[ $taint == *O* ]]; then
		echo ours
	else
		echo stock
	fi
}

# Load ib_core, ib_uverbs (first: stock-baseline 4.5, device removal
# ordering), ib_cm, configfs, then iw_cm, rdma_cm, rdma_ucm: insmod of our
# .ko for the names in OURS, modprobe of the stock module otherwise.
# With "uverbs_late" (ib_uverbs must not be loaded yet), ib_uverbs comes
# after rdma_cm, just before rdma_ucm, as when a boot loads NVMe-oF or
# NFS/RDMA early (tests/removal.sh).
# Runs inside a case; reports "stack: ..." through info.
load_stack() { # OURS [uverbs_late]
	local ours=$1 late=${2:-} m origin want desc=

	for m in rdma_ucm rdma_cm iw_cm; do
		mod_present "$m" || continue
		run "pre-rmmod" 60 rmmod "$m" ||
			{ fail "$m was already loaded and cannot be removed"; return 1; }
	done
	for m in $ours; do
		if ! in_list "$m" "$STACK_MODS"; then
			fail "unknown module '$m' in RDMACM_OURS"
			return 1
		fi
		if [ -z "$OURS_DIR" ] || [ ! -f "$OURS_DIR/$m.ko" ]; then
			fail "our $m.ko not found (RDMACM_OURS_DIR='$OURS_DIR')"
			return 1
		fi
	done
	if [ -n "$late" ] && mod_present ib_uverbs; then
		fail "ib_uverbs is loaded already: cannot load it after rdma_cm"
		return 1
	fi
	for m in ib_core ib_uverbs ib_cm; do
		[ -n "$late" ] && [ "$m" = ib_uverbs ] && continue
		run "modprobe" 120 modprobe "$m" || { fail "modprobe $m failed"; return 1; }
	done
	if ! run "modprobe" 60 modprobe configfs && ! grep -qw configfs /proc/filesystems; then
		fail "no configfs"
		return 1
	fi
	for m in $STACK_MODS; do
		if [ -n "$late" ] && [ "$m" = rdma_ucm ]; then
			run "modprobe" 120 modprobe ib_uverbs ||
				{ fail "modprobe ib_uverbs failed"; return 1; }
		fi
		if in_list "$m" "$ours" && [ "$OURS_INSTALLED" = 1 ]; then
			[ "$(modinfo -n "$m" 2> /dev/null)" = "$OURS_DIR/$m.ko" ] ||
				{
					fail "modprobe would load $(modinfo -n "$m" 2>&1)," \
						"not $OURS_DIR/$m.ko"
					return 1
				}
			run "modprobe-$m" 120 modprobe "$m" ||
				{ fail "modprobe $m failed"; return 1; }
		elif in_list "$m" "$ours"; then
			run "insmod-$m" 120 insmod "$OURS_DIR/$m.ko" ||
				{ fail "insmod $OURS_DIR/$m.ko failed"; return 1; }
		else
			run "modprobe-$m" 120 modprobe "$m" ||
				{ fail "modprobe $m failed"; return 1; }
		fi
	done
	for m in $STACK_MODS; do
		want=stock
		in_list "$m" "$ours" && want=ours
		origin=$(mod_origin "$m")
		desc+=" $m=$origin"
		[ "$origin" = "$want" ] || fail "$m: loaded module is $origin, expected $want"
		[ "$(cat "/sys/module/$m/initstate" 2> /dev/null)" = live ] ||
			fail "$m: not live"
	done
	[ -n "$late" ] && desc+=" (ib_uverbs after rdma_cm)"
	info "stack:$desc"
	failed && return 1
	return 0
}

# Processes holding RDMA character devices (rdma_cm, uverbs) open.
rdma_fd_users() {
	local p users=()
	for p in /proc/[0-9]*; do
		[[ $(ls -l "$p/fd" 2> /dev/null) == *" -> /dev/infiniband/"* ]] || continue
		users+=("${p#/proc/}($(cat "$p/comm" 2> /dev/null))")
	done
	echo "${users[*]}"
}

# Remove rdma_ucm, rdma_cm, iw_cm ("cm", the default; with "all" also the soft drivers,
# ib_uverbs, ib_cm, ib_core) and check they are gone.
unload_stack() { # [cm|all]
	local m mods="rdma_ucm rdma_cm iw_cm" users

	[ "${1:-}" = all ] && mods+=" rdma_rxe siw ib_uverbs ib_cm ib_core"
	for m in $mods; do
		mod_present "$m" || continue
		# builtin modules have no initstate and cannot be removed
		[ -e "/sys/module/$m/initstate" ] || continue
		if ! run "rmmod-$m" 60 rmmod "$m"; then
			local h holders=()
			for h in "/sys/module/$m/holders/"*; do
				[ -e "$h" ] && holders+=("${h##*/}")
			done
			fail "rmmod $m failed" \
				"(refcnt $(cat "/sys/module/$m/refcnt" 2> /dev/null)," \
				"holders: ${holders[*]})"
			users=$(rdma_fd_users)
			[ -n "$users" ] && fail "/dev/infiniband users: $users"
		fi
		mod_present "$m" && fail "$m still loaded after rmmod"
	done
	failed && return 1
	return 0
}

# --- devices ------------------------------------------------------------------

dev_of() { # TRANSPORT
	echo "${1}0"
}

# The transport the tests run on: T (rxe or siw) and its device DEV.
T=
DEV=
set_transport() { # TRANSPORT
	T=$1
	DEV=$(dev_of "$1")
}

driver_of() { # TRANSPORT
	case $1 in
	rxe) echo rdma_rxe ;;
	siw) echo siw ;;
	esac
}

dev_exists() { # DEV
	rdma link show "$1/1" > /dev/null 2>&1
}

# dummy0 10.0.0.1/24 with a multicast route, and an rxe0 or siw0 on it,
# waiting for the port to be ACTIVE.
setup_transport() { # TRANSPORT
	local t=$1 dev drv deadline

	dev=$(dev_of "$t")
	drv=$(driver_of "$t")
	[ -n "$drv" ] || { fail "unknown transport '$t' (rxe or siw)"; return 1; }
	run modprobe 120 modprobe "$drv" || { fail "modprobe $drv failed"; return 1; }
	if [ "$NETDEV_KIND" = dummy ]; then
		if ip link show "$NETDEV" > /dev/null 2>&1; then
			run ip 30 ip link del "$NETDEV"
		fi
		if ! { run ip 30 ip link add "$NETDEV" type dummy &&
			run ip 30 ip addr add "$ADDR/24" dev "$NETDEV" &&
			run ip 30 ip link set "$NETDEV" up &&
			run ip 30 ip route add 224.0.0.0/4 dev "$NETDEV"; }; then
			fail "cannot set up $NETDEV with $ADDR/24 and a 224.0.0.0/4 route"
			return 1
		fi
	fi
	run rdma 60 rdma link add "$dev" type "$t" netdev "$NETDEV" ||
		{ fail "rdma link add $dev type $t netdev $NETDEV: $(rc_text rdma)"; return 1; }
	deadline=$((SECONDS + $(tmo 30)))
	until rdma link show "$dev/1" 2> /dev/null | grep -q 'state ACTIVE'; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			rdma link show "$dev/1" >> rdma.out 2>&1
			fail "$dev/1 not ACTIVE after $(tmo 30) s"
			return 1
		fi
		nap 0.5
	done
	info "$(rdma link show "$dev/1" 2>&1)"
	return 0
}

teardown_transport() { # TRANSPORT
	local dev

	dev=$(dev_of "$1")
	if grep -qs '^delete ' "$WORK/stuck"; then
		fail "an earlier rdma link delete is stuck in the kernel: not trying again"
	elif dev_exists "$dev"; then
		run delete 60 rdma link delete "$dev" ||
			fail "rdma link delete $dev: $(rc_text delete)"
		dev_exists "$dev" && fail "$dev still exists after rdma link delete"
	fi
	if [ "$NETDEV_KIND" = dummy ] && ip link show "$NETDEV" > /dev/null 2>&1; then
		run ip 30 ip link del "$NETDEV" || fail "ip link del $NETDEV failed"
	fi
	failed && return 1
	return 0
}
