// The CPU features that choose svc's whisper.cpp build (variants.json), asked of the processor itself:
// CPUID and XGETBV on x86-64, the kernel's hwcaps on arm64. /proc/cpuinfo is not asked: an emulator or a
// container can show another CPU's flags there, and a wrong answer means SIGILL. Compiled with no SIMD
// flags, so it runs on every CPU of its architecture.
#include <node_api.h>
#include <stddef.h>

#define MAX_FEATURES 32

#if defined(__x86_64__)
#include <cpuid.h>

static unsigned long long xgetbv0(void) {
  unsigned int eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return ((unsigned long long)edx << 32) | eax;
}

static size_t collect(const char **out) {
  unsigned int a, b, c, d;
  size_t n = 0;
  unsigned int max = __get_cpuid_max(0, NULL);
  if (max < 1 || !__get_cpuid(1, &a, &b, &c, &d)) return 0;
  const unsigned int c1 = c;
  // AVX state must be enabled by the operating system too (XCR0), not just present in the CPU.
  const unsigned long long xcr0 = (c1 & (1u << 27)) ? xgetbv0() : 0;
  const int avx_os = (xcr0 & 0x6) == 0x6;
  const int avx512_os = (xcr0 & 0xe6) == 0xe6;
  if (c1 & (1u << 0)) out[n++] = "sse3";
  if (c1 & (1u << 9)) out[n++] = "ssse3";
  if (c1 & (1u << 13)) out[n++] = "cx16";
  if (c1 & (1u << 19)) out[n++] = "sse4_1";
  if (c1 & (1u << 20)) out[n++] = "sse4_2";
  if (c1 & (1u << 22)) out[n++] = "movbe";
  if (c1 & (1u << 23)) out[n++] = "popcnt";
  if (avx_os && (c1 & (1u << 28))) out[n++] = "avx";
  if (avx_os && (c1 & (1u << 12))) out[n++] = "fma";
  if (avx_os && (c1 & (1u << 29))) out[n++] = "f16c";
  if (max >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    if (b & (1u << 3)) out[n++] = "bmi1";
    if (b & (1u << 8)) out[n++] = "bmi2";
    if (avx_os && (b & (1u << 5))) out[n++] = "avx2";
    if (avx512_os) {
      if (b & (1u << 16)) out[n++] = "avx512f";
      if (b & (1u << 17)) out[n++] = "avx512dq";
      if (b & (1u << 28)) out[n++] = "avx512cd";
      if (b & (1u << 30)) out[n++] = "avx512bw";
      if (b & (1u << 31)) out[n++] = "avx512vl";
    }
  }
  if (__get_cpuid(0x80000001u, &a, &b, &c, &d)) {
    if (c & (1u << 0)) out[n++] = "lahf_lm";
    if (c & (1u << 5)) out[n++] = "lzcnt";
  }
  return n;
}

#elif defined(__aarch64__)
#include <sys/auxv.h>

static size_t collect(const char **out) {
  const unsigned long hwcap = getauxval(AT_HWCAP);
  size_t n = 0;
  if (hwcap & (1ul << 1)) out[n++] = "asimd";
  if (hwcap & (1ul << 9)) out[n++] = "fphp";
  if (hwcap & (1ul << 10)) out[n++] = "asimdhp";
  if (hwcap & (1ul << 20)) out[n++] = "asimddp";
  return n;
}

#else
static size_t collect(const char **out) {
  (void)out;
  return 0;
}
#endif

static napi_value features(napi_env env, napi_callback_info info) {
  (void)info;
  const char *names[MAX_FEATURES];
  const size_t count = collect(names);
  napi_value list;
  if (napi_create_array_with_length(env, count, &list) != napi_ok) return NULL;
  for (size_t i = 0; i < count; i++) {
    napi_value name;
    if (napi_create_string_utf8(env, names[i], NAPI_AUTO_LENGTH, &name) != napi_ok) return NULL;
    if (napi_set_element(env, list, (uint32_t)i, name) != napi_ok) return NULL;
  }
  return list;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "features", NAPI_AUTO_LENGTH, features, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "features", fn) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
