#!/bin/sh
# no_orphaned_workers.sh must fail, and end the process, when a process still runs the file it
# watches: a copy of sleep(1) stands in for a worker left behind.
checker=$1
dir=$(mktemp -d) || exit 2
cp "$(command -v sleep)" "$dir/cuabi-compile-worker"
"$dir/cuabi-compile-worker" 30 &
planted=$!
sleep 0.2
sh "$checker" "$dir/cuabi-compile-worker" 2 2>/dev/null
status=$?
sleep 0.2
alive=$(kill -0 "$planted" 2>/dev/null && echo yes || echo no)
kill -9 "$planted" 2>/dev/null
wait "$planted" 2>/dev/null
rm -rf "$dir"
[ "$status" -eq 1 ] || { echo "the check passed with a planted worker running (status $status)"; exit 1; }
[ "$alive" = no ] || { echo "the check left the planted worker running"; exit 1; }
echo "the check failed on the planted worker and ended it"
