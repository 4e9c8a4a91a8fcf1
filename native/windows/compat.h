/* Forced into every C file of the mingw-w64 cross build (see stepwise_windows.cmake).
 *
 * ggml-cpu.c disables thread power throttling with THREAD_POWER_THROTTLING_STATE, which
 * mingw-w64 10's headers (Debian 12) do not define; newer mingw-w64 and the Windows SDK do.
 * Only _mingw.h is included here (no windows.h), so nothing else changes for other files. */
#ifndef STEPWISE_MINGW_COMPAT_H
#define STEPWISE_MINGW_COMPAT_H
#if defined(__MINGW32__)
#include <_mingw.h>
#if defined(__MINGW64_VERSION_MAJOR) && __MINGW64_VERSION_MAJOR < 11
#define THREAD_POWER_THROTTLING_CURRENT_VERSION 1
#define THREAD_POWER_THROTTLING_EXECUTION_SPEED 0x1
#define THREAD_POWER_THROTTLING_VALID_FLAGS (THREAD_POWER_THROTTLING_EXECUTION_SPEED)
typedef struct _THREAD_POWER_THROTTLING_STATE {
    unsigned long Version;
    unsigned long ControlMask;
    unsigned long StateMask;
} THREAD_POWER_THROTTLING_STATE, *PTHREAD_POWER_THROTTLING_STATE;
#endif
#endif
#endif
