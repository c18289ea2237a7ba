#!/usr/bin/env bash
# heartd under callgrind, standing in for the heartd binary wherever a bench script starts one (for
# scripts/link/profile-order.sh): runs $CG_HEARTD (a build with its debug information stripped: valgrind 3.19 cannot
# read Swift 6.3's DWARF) with the arguments given, dumps the counters after CG_T0 s (dump 1: start-up) and again
# CG_W s later (dump 2: the steady window), to $CG_OUT.<pid>.1 and .2. Symbols stay mangled (--demangle=no): they
# are the names the linker's --symbol-ordering-file takes.
set -u
: "${CG_HEARTD:?}" "${CG_OUT:?}"
valgrind --tool=callgrind --callgrind-out-file="$CG_OUT.%p" --dump-instr=no --demangle=no "$CG_HEARTD" "$@" &
pid=$!
trap 'kill -TERM $pid' TERM
trap 'kill -INT $pid' INT
( sleep "${CG_T0:-30}"; callgrind_control -d $pid >/dev/null; sleep "${CG_W:-40}"; callgrind_control -d $pid >/dev/null ) &
# wait returns early when a trapped signal arrives; wait again for heartd's own exit.
wait $pid
wait $pid
