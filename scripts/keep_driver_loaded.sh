# Sourced by scripts/test.sh and scripts/fuzz.sh before their AddressSanitizer
# runs: keep_driver_loaded CMD [ARGS...] runs CMD with lavapipe preloaded.
#
# Why: lavapipe allocates a 128-byte block once per process (from a
# pthread_once initialiser, most likely Mesa's CPU detection, which builds an
# L3 cache affinity mask on AMD processors) and keeps it in one of its own
# globals. The Vulkan loader unloads the driver when the last instance is
# destroyed; from then on the block has no reference in mapped memory, and
# LeakSanitizer reports it at exit as a leak of an "<unknown module>" that no
# suppression can name. A bare vkCreateInstance + vkDestroyInstance shows it
# on such a machine, without vknn. Preloading the driver keeps it mapped
# (dlclose does not unload a preloaded library), so the block stays
# referenced and only leaks of ours are reported.
#
# verify_asan_link_order=0: the preloaded driver then comes before the shared
# ASan runtime of a gcc build in the library list. That order is harmless
# here because the driver defines no allocator of its own: its malloc and
# free still resolve to the runtime's.

lavapipe_library() {
  local json
  for json in /usr/share/vulkan/icd.d/lvp_icd."$(uname -m)".json /usr/share/vulkan/icd.d/lvp_icd.json; do
    [ -f "$json" ] || continue
    sed -n 's/.*"library_path" *: *"\([^"]*\)".*/\1/p' "$json"
    return
  done
}

keep_driver_loaded() {
  local lib
  lib=$(lavapipe_library)
  # A bare file name (no directory) is found on the library path.
  if [ -z "$lib" ] || { [ "${lib#*/}" != "$lib" ] && [ ! -f "$lib" ]; }; then
    "$@"
    return
  fi
  LD_PRELOAD="$lib${LD_PRELOAD:+ $LD_PRELOAD}" \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}
