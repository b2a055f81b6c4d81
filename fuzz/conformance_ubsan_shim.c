/* For the conformance fuzzer's sanitizer run (scripts/conformance-fuzz.sh):
 * atheris' asan_with_fuzzer.so carries ASan, libFuzzer and UBSan's C runtime
 * but not UBSan's C++ part, which the core module built with
 * -fsanitize=undefined calls for its vptr and function-type checks. These
 * definitions, preloaded after it, let the module load with those two checks
 * off (as -fno-sanitize=vptr,function would); every other UBSan check and
 * ASan stay on. The C++ libFuzzer targets in fuzz/ keep all of them. */
#include <stdint.h>

uintptr_t __ubsan_vptr_type_cache[128];

void __ubsan_handle_dynamic_type_cache_miss_abort(void *data, void *ptr, void *hash) {
  (void)data;
  (void)ptr;
  (void)hash;
}

void __ubsan_handle_function_type_mismatch_v1_abort(void *data, void *fn, void *callee_rtti,
                                                    void *fn_rtti) {
  (void)data;
  (void)fn;
  (void)callee_rtti;
  (void)fn_rtti;
}
