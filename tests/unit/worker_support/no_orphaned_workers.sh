#!/bin/sh
# Fails when a process still runs the compile worker $1 (this build's) once every test that may
# start one has ended: a worker must end with its host. Waits up to $2 quarter seconds (default
# 20) for workers to notice (their watchdog ticks every 100 ms), then names and ends the ones left.
worker=$(realpath "$1") || exit 2
ticks=${2:-20}
left() {
  ls -l /proc/[0-9]*/exe 2>/dev/null | grep -F -- "-> $worker" | sed 's|.*/proc/\([0-9]*\)/exe.*|\1|'
}
while [ "$ticks" -gt 0 ]; do
  [ -z "$(left)" ] && { echo "no compile worker of $worker is left"; exit 0; }
  ticks=$((ticks - 1))
  sleep 0.25
done
for pid in $(left); do
  echo "orphaned compile worker: pid $pid, parent $(awk '{print $4}' /proc/$pid/stat 2>/dev/null)" >&2
  kill -9 "$pid" 2>/dev/null
done
exit 1
