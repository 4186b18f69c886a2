#!/bin/sh
# Builds heapfmt under AddressSanitizer + UndefinedBehaviorSanitizer and runs
# the whole test suite.  Tests that need ../shared (the corpus) say they
# skipped when it is absent (a line each, with the reason, before the end).
# Ends with one line: "N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-"$top/build-test"}
cd "$top" || exit 2
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" -Db_sanitize=address,undefined -Db_lundef=false \
		--buildtype=debugoptimized >"$build.setup.log" 2>&1 ||
		{ cat "$build.setup.log"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
fi
ninja -C "$build" || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
meson test -C "$build" --print-errorlogs --num-processes 2 "$@"
rc=$?
log="$build/meson-logs/testlog.json"
if [ -f "$log" ]; then
	python3 - "$log" <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    res = r.get("result")
    if res in ("OK", "EXPECTEDFAIL"): passed += 1
    elif res == "SKIP":
        skipped += 1
        # meson prints no log of a skipped test: its own SKIP line says why.
        why = [l for l in ((r.get("stdout") or "") + (r.get("stderr") or "")).splitlines()
               if l.startswith("SKIP")]
        print(f"skipped: {r.get('name')}: {why[0] if why else '(no reason given)'}")
    else: failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
else
	echo "0 passed, 1 failed, 0 skipped"
fi
exit $rc
