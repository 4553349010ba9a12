/* Trial (issue 28): non-temporal copy of a crop's output. Build: gcc -O2 -shared -fPIC -I$JAVA_HOME/include -I$JAVA_HOME/include/linux -o /tmp/nt/libstreamcopy.so streamcopy.c; run with -Dpinshard.nt=true. */
#include <jni.h>
#include <immintrin.h>
#include <string.h>
#include <stdint.h>
JNIEXPORT void JNICALL Java_io_pinshard_loader_augment_StreamCopy_copy(JNIEnv* e, jclass c, jlong src, jlong dst, jlong n) {
  char* d = (char*)(intptr_t)dst; const char* s = (const char*)(intptr_t)src;
  size_t head = (64 - ((uintptr_t)d & 63)) & 63; if (head > (size_t)n) head = n;
  memcpy(d, s, head); d += head; s += head; n -= head;
  size_t body = n & ~(size_t)63;
  for (size_t i = 0; i < body; i += 64) {
    __m128i a = _mm_loadu_si128((const __m128i*)(s+i)), b = _mm_loadu_si128((const __m128i*)(s+i+16)),
            c2 = _mm_loadu_si128((const __m128i*)(s+i+32)), d2 = _mm_loadu_si128((const __m128i*)(s+i+48));
    _mm_stream_si128((__m128i*)(d+i), a); _mm_stream_si128((__m128i*)(d+i+16), b);
    _mm_stream_si128((__m128i*)(d+i+32), c2); _mm_stream_si128((__m128i*)(d+i+48), d2);
  }
  _mm_sfence();
  memcpy(d+body, s+body, n-body);
}
