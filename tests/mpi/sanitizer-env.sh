# Sourced by every script that runs MPI programs built with ASan: Open MPI
# keeps allocations to its exit and unloads the components that made them,
# so the programs check for leaks themselves before MPI_Finalize (with
# lsan.supp naming the MPI libraries' own) and the check at exit is off;
# the slow unwinder follows MPI's frames, which lack frame pointers; the
# stacks stay unsymbolized (the suppressions name modules only, and
# symbolizing MPI's many allocations cost a second a run): a report's
# frames read MODULE+OFFSET, for addr2line, or rerun with symbolize=1.
if [ -n "${ASAN_OPTIONS:-}" ]; then
	export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0:symbolize=0"
	export LSAN_OPTIONS="suppressions=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lsan.supp:print_suppressions=0:leak_check_at_exit=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fi
