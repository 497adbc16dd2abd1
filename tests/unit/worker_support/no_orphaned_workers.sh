#!/bin/sh
# Fails when a process still runs the compile worker $1 (this build's) once every test that may
# start one has ended: a worker must end with its host. Waits a few seconds for workers to notice
# (their watchdog ticks every 100 ms), then names and ends the ones left.
worker=$(realpath "$1") || exit 2
left() {
  for exe in /proc/[0-9]*/exe; do
    target=$(readlink "$exe" 2>/dev/null) || continue
    case "$target" in "$worker"|"$worker (deleted)") pid=${exe#/proc/}; echo "${pid%/exe}";; esac
  done
}
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  [ -z "$(left)" ] && { echo "no compile worker of $worker is left"; exit 0; }
  sleep 0.25
done
for pid in $(left); do
  echo "orphaned compile worker: pid $pid, parent $(awk '{print $4}' /proc/$pid/stat 2>/dev/null)" >&2
  kill -9 "$pid" 2>/dev/null
done
exit 1
