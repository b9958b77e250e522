# Sourced by scripts/test.sh and scripts/fuzz.sh before their AddressSanitizer
# runs: keep_driver_loaded CMD [ARGS...] runs CMD with lavapipe preloaded.
#
# Why: each time lavapipe is loaded it allocates a 128-byte block (from a
# pthread_once initialiser, most likely Mesa's CPU detection, which builds
# an L3 cache affinity mask on AMD processors) and keeps it in one of its own
# globals. The Vulkan loader unloads the driver when the last instance is
# destroyed; from then on the block has no reference in mapped memory, and
# LeakSanitizer reports it at exit as a leak of an "<unknown module>" that no
# suppression can name. vkCreateInstance, vkEnumeratePhysicalDevices and
# vkDestroyInstance alone show it on such a machine, without vknn.
# Preloading the driver keeps it mapped (dlclose does not unload a preloaded
# library), so the block stays referenced and only leaks of ours are
# reported.
#
# verify_asan_link_order=0: the preloaded driver then comes before the shared
# ASan runtime of a gcc build in the library list. That order is harmless
# here because the driver defines no allocator of its own: its malloc and
# free still resolve to the runtime's.
#
# The preload reaches every process CMD starts (meson, the tests, the tools
# they run): each maps the driver once more, which costs milliseconds.

# lavapipe's library as its ICD file names it: a relative path is taken
# from the file's folder (as the loader does), a bare name is left to the
# library path. Nothing when no ICD file names lavapipe.
lavapipe_library() {
  local dir json lib
  for dir in /usr/local/share/vulkan/icd.d /usr/share/vulkan/icd.d /etc/vulkan/icd.d; do
    for json in "$dir/lvp_icd.$(uname -m).json" "$dir/lvp_icd.json"; do
      [ -f "$json" ] || continue
      lib=$(sed -n 's/.*"library_path" *: *"\([^"]*\)".*/\1/p' "$json")
      case $lib in
        /*) ;;
        */*) lib="$dir/$lib" ;;
      esac
      echo "$lib"
      return
    done
  done
}

keep_driver_loaded() {
  local lib
  lib=$(lavapipe_library)
  if [ -z "$lib" ] || { [ "${lib#*/}" != "$lib" ] && [ ! -f "$lib" ]; }; then
    echo "keep_driver_loaded: no lavapipe library found; LeakSanitizer may report lavapipe's block" >&2
    "$@"
    return
  fi
  LD_PRELOAD="$lib${LD_PRELOAD:+ $LD_PRELOAD}" \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}
